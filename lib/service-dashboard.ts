import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { AlarmStatusWidget, Dashboard, GraphWidget, Metric, TextWidget, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { edgeOutcomes, metricNames, metricsNamespace, serviceName } from '@shared/util/telemetry-names';

export interface ServiceDashboardProps {
  /** One function per route-table handler, by handler name. */
  functions: ReadonlyMap<string, IFunction>;
  /** The service API (v1, client, legacy routes). */
  serviceApi: HttpApi;
  /** The edge's CloudFront distribution (its metrics live in us-east-1). */
  edgeDistributionId: string;
  table: ITableV2;
  /** The event stream's name (Kinesis: what the Lambdas put to). */
  streamName: string;
  /** The Firehose delivery stream's name (the stream -> the lake). */
  deliveryStreamName: string;
  /** The alarms to show (ServiceAlarms). */
  alarms: Alarm[];
}

const minute = Duration.minutes(1);
const wide = { width: 24, height: 6 } as const;
const half = { width: 12, height: 6 } as const;

/**
 * The operations dashboard: redirects per minute by outcome, clicks, p50 / p99 latency per route
 * (each route is one function), 4xx / 5xx per API, Lambda errors and throttles, DynamoDB
 * throttles, Firehose delivery freshness and failed puts, and the state of every alarm.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const app = (metricName: string, dimensionsMap: Record<string, string>, label?: string) =>
      new Metric({
        namespace: metricsNamespace,
        metricName,
        dimensionsMap: { service: serviceName, ...dimensionsMap },
        statistic: 'Sum',
        period: minute,
        label,
      });
    const edgeRate = (metricName: string, label: string) =>
      new Metric({
        namespace: 'AWS/CloudFront',
        metricName,
        dimensionsMap: { DistributionId: props.edgeDistributionId, Region: 'Global' },
        region: 'us-east-1',
        statistic: 'Average',
        period: minute,
        label,
      });
    const functions = [...props.functions.entries()].sort(([a], [b]) => a.localeCompare(b));
    const perFunction = (metric: (fn: IFunction) => Metric) =>
      functions.map(([name, fn]) => metric(fn).with({ label: name, period: minute }));

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# ${Stack.of(this).stackName}\nApplication metrics are in the \`${metricsNamespace}\` namespace (Powertools EMF); latency is each route's function duration.`,
        ...wide,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, ...wide, height: 4 }));
    this.dashboard.addWidgets(
      new GraphWidget({
        // From the click events, by the counter consumer: answers to clicks on known links (an
        // unknown key's 404 is in '4xx per API').
        title: 'Redirects per minute by outcome',
        left: edgeOutcomes.map((outcome) => app(metricNames.redirects, { Outcome: outcome }, outcome)),
        stacked: true,
        ...half,
      }),
      new GraphWidget({
        // Written by the click counter consumer once per batch, by Source (edge, client API).
        title: 'Clicks per minute (edge and client API)',
        left: [
          app(metricNames.clicks, { Source: 'edge' }, 'human, edge'),
          app(metricNames.clicks, { Source: 'client API' }, 'human, client API'),
          app(metricNames.botClicks, { Source: 'edge' }, 'bots, edge'),
          app(metricNames.botClicks, { Source: 'client API' }, 'bots, client API'),
        ],
        ...half,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Latency p50 per route (ms)',
        left: perFunction((fn) => fn.metricDuration({ statistic: 'p50' })),
        ...half,
      }),
      new GraphWidget({
        title: 'Latency p99 per route (ms)',
        left: perFunction((fn) => fn.metricDuration({ statistic: 'p99' })),
        ...half,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: '4xx per API',
        left: [props.serviceApi.metricClientError({ period: minute, statistic: 'Sum', label: 'service' })],
        right: [edgeRate('4xxErrorRate', 'edge (CloudFront, % of requests)')],
        ...half,
      }),
      new GraphWidget({
        title: '5xx per API',
        left: [props.serviceApi.metricServerError({ period: minute, statistic: 'Sum', label: 'service' })],
        right: [edgeRate('5xxErrorRate', 'edge (CloudFront, % of requests)')],
        ...half,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Lambda errors',
        left: perFunction((fn) => fn.metricErrors({ statistic: 'Sum' })),
        ...half,
      }),
      new GraphWidget({
        title: 'Lambda throttles',
        left: perFunction((fn) => fn.metricThrottles({ statistic: 'Sum' })),
        ...half,
      }),
    );
    const operations = [
      Operation.GET_ITEM,
      Operation.PUT_ITEM,
      Operation.UPDATE_ITEM,
      Operation.QUERY,
      Operation.TRANSACT_WRITE_ITEMS,
      Operation.BATCH_WRITE_ITEM,
    ];
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'DynamoDB throttles',
        left: [
          props.table.metricThrottledRequestsForOperations({
            operations,
            period: minute,
            label: 'throttled requests (DynamoDB)',
          }),
          app(metricNames.throttles, { Service: 'DynamoDB' }, 'throttled calls seen by the functions'),
        ],
        ...half,
      }),
      new GraphWidget({
        title: 'Events: lake freshness (s), counter lag (ms) and failed puts',
        left: [
          new Metric({
            namespace: 'AWS/Firehose',
            metricName: 'DeliveryToS3.DataFreshness',
            dimensionsMap: { DeliveryStreamName: props.deliveryStreamName },
            statistic: 'Maximum',
            period: minute,
            label: 'oldest record not yet in S3 (s)',
          }),
          new Metric({
            namespace: 'AWS/Kinesis',
            metricName: 'GetRecords.IteratorAgeMilliseconds',
            dimensionsMap: { StreamName: props.streamName },
            statistic: 'Maximum',
            period: minute,
            label: 'oldest record not yet read (ms)',
          }),
        ],
        right: [
          app(metricNames.undeliveredEvents, { StreamName: props.streamName }, 'events lost after retries'),
          app(metricNames.throttles, { Service: 'Kinesis' }, 'throttled put attempts'),
          new Metric({
            namespace: 'AWS/Kinesis',
            metricName: 'PutRecords.ThrottledRecords',
            dimensionsMap: { StreamName: props.streamName },
            statistic: 'Sum',
            period: minute,
            label: 'throttled records (event stream)',
          }),
          app(metricNames.clicksNotRecorded, {}, 'edge clicks not recorded'),
        ],
        ...half,
      }),
    );
  }
}
