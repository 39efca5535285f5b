import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricNames, metricsNamespace, serviceName } from '@shared/util/telemetry-names';

/**
 * Alarms that page someone (through `topic`, KMS-encrypted, TLS only): any Lambda error,
 * any DynamoDB throttle, the rate limiter failing open, and whatever other constructs add with `alarmOn` (e.g. Firehose
 * delivery failures).
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    this.watchRateLimiter();
  }

  alarmOn(id: string, metric: IMetric, description: string, threshold = 1): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }

  watchFunction(name: string, fn: IFunction): void {
    this.alarmOn(
      `${name}Errors`,
      fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      `${name}: Lambda errors`,
    );
  }

  watchTable(table: ITableV2): void {
    // The operations this service uses (a CloudWatch math alarm takes at most 10 metrics).
    const operations = [
      Operation.GET_ITEM,
      Operation.PUT_ITEM,
      Operation.UPDATE_ITEM,
      Operation.DELETE_ITEM,
      Operation.QUERY,
      Operation.BATCH_GET_ITEM,
      Operation.BATCH_WRITE_ITEM,
      Operation.TRANSACT_WRITE_ITEMS,
    ];
    this.alarmOn(
      'TableThrottles',
      table.metricThrottledRequestsForOperations({ operations, period: Duration.minutes(5) }),
      'DynamoDB: throttled requests',
    );
    this.alarmOn(
      'TableSystemErrors',
      table.metricSystemErrorsForOperations({ operations, period: Duration.minutes(5) }),
      'DynamoDB: system errors',
    );
  }

  /**
   * The rate limiter failing open: requests let through unlimited because their counter could
   * not be written (DynamoDB throttling or an outage). One is enough to page: while it lasts,
   * no workspace is limited.
   */
  private watchRateLimiter(): void {
    this.alarmOn(
      'RateLimiterFailedOpen',
      new Metric({
        namespace: metricsNamespace,
        metricName: metricNames.rateLimiterFailedOpen,
        dimensionsMap: { service: serviceName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      'Rate limiter failing open: requests let through unlimited (counter write failed; see the warnings in the logs)',
    );
  }

  /** Firehose: events our sink gave up on (EMF metric) and delivery to S3 falling behind. */
  watchEventStream(streamName: string, deliveryStreamName: string): void {
    this.alarmOn(
      'UndeliveredEvents',
      new Metric({
        namespace: metricsNamespace,
        metricName: metricNames.undeliveredEvents,
        dimensionsMap: { service: serviceName, StreamName: streamName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      'Events the Lambdas could not put to the event stream after retries (logged with the records)',
    );
    this.alarmOn(
      'EventDeliveryFreshness',
      new Metric({
        namespace: 'AWS/Firehose',
        metricName: 'DeliveryToS3.DataFreshness',
        dimensionsMap: { DeliveryStreamName: deliveryStreamName },
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      'Firehose delivery to S3 is more than 15 minutes behind (failing or throttled)',
      900,
    );
  }
}
