import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { DlqDestinationConfig, IEventSourceDlq, IEventSourceMapping, IFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { KEPT_FAILURE_DAYS } from '@shared/events/consumer-retention';
import type { ServiceAlarms } from './service-alarms';

/** The request-metrics filter counting every write to a failures bucket (alarmed). */
export const STREAM_FAILURES_METRICS_FILTER = 'AllObjects';

/**
 * Where a stream consumer's failed batches are kept whole: the S3 on-failure destination of its
 * event source mapping. For an S3 destination Lambda writes the entire invocation record, the
 * batch's records included (an SQS or SNS destination gets only the shard and sequence range,
 * useless once the records leave the stream):
 * https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html.
 * Encrypted, private, TLS only; objects expire after 30 days; every write is counted by a
 * request-metrics filter and alarms. `admin replay-stream-failures --bucket <name>` replays them
 * (the stack outputs `CounterFailuresBucketName`, `PublishFailuresBucketName` and, with
 * `edgeHotLinks`, `EdgeClickLogFailuresBucketName` name the buckets).
 */
export class StreamFailures extends Construct {
  readonly bucket: Bucket;

  /** Whose failed batches these are (the stack output's description). */
  readonly consumer: string;

  constructor(scope: Construct, id: string, props: { consumer: string }) {
    super(scope, id);
    this.consumer = props.consumer;
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      metrics: [{ id: STREAM_FAILURES_METRICS_FILTER }],
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'kept-failures-expiry', expiration: Duration.days(KEPT_FAILURE_DAYS) }],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only Lambda (the on-failure destination) and the consumer write here, and every write is counted by request metrics and alarms; CloudTrail records the API calls.',
    });
  }

  /**
   * The on-failure destination of an event source mapping. Grants only what Lambda documents for
   * an S3 destination (s3:PutObject and s3:ListBucket), where CDK's `S3OnFailureDestination`
   * grants read and write.
   */
  destination(): IEventSourceDlq {
    return {
      bind: (_target: IEventSourceMapping, handler: IFunction): DlqDestinationConfig => {
        this.grantPut(handler);
        handler.addToRolePolicy(
          new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
        );
        return { destination: this.bucket.bucketArn };
      },
    };
  }

  /** PutObject on any key of the bucket (Lambda picks the keys of its records). */
  grantPut(fn: IFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('*')] }));
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/*]`,
        reason:
          'Kept failures are written under keys Lambda chooses (mapping id, shard, time); the wildcard is limited to PutObject on the failures bucket.',
      });
  }

  /** Alarm on any kept failure (a batch its consumer gave up on: not applied until replayed). */
  watch(alarms: ServiceAlarms, id: string, description: string): void {
    alarms.alarmOn(
      id,
      new Metric({
        namespace: 'AWS/S3',
        metricName: 'PutRequests',
        dimensionsMap: { BucketName: this.bucket.bucketName, FilterId: STREAM_FAILURES_METRICS_FILTER },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      description,
    );
  }
}
