import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Stream, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import {
  CONSUMER_MAX_RECORD_AGE_HOURS,
  STREAM_FAILURES_BUCKET_ENV,
  STREAM_RETENTION_HOURS,
} from '@shared/events/consumer-retention';
import { clickCountersConsumer } from '@shared/routes/consumer-specs';
import { ServiceFunction } from './service-function';
import { LogGroup, LogStream, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  ERRORS_PREFIX,
  RAW_FILE_EXTENSION,
  rawPartitionJq,
  rawPartitionPath,
} from '@shared/analytics/lake/lake-layout';
import type { ServiceAlarms } from './service-alarms';
import { StreamFailures } from './stream-failures';

/**
 * The S3 prefix Firehose writes to: the same text as `rawPartitionPath()` of the lake, with the
 * partition values taken from the record itself by the JQ metadata extraction below.
 */
export const eventPartitionPrefix = `${rawPartitionPath({
  shard: '!{partitionKeyFromQuery:shard}',
  dt: '!{partitionKeyFromQuery:dt}',
  hour: '!{partitionKeyFromQuery:hour}',
})}/`;

/**
 * JQ 1.6 query: the workspace's shard (a hash of `workspaceId`, the same as shardOf()), UTC date
 * and hour from the event's own `timestamp`. Active partitions: LAKE_SHARDS x the hours in flight,
 * whatever the number of workspaces.
 */
export const eventPartitionQuery = rawPartitionJq();

export const eventErrorPrefix = `${ERRORS_PREFIX}!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/`;

export interface EventPipelineProps {
  bucket: IBucket;
  /** The links' table: the click counter consumer updates link items. */
  table: ITableV2;
}

/**
 * The event stream's capacity, from context `eventStreamShards`: a shard count (provisioned
 * mode: 1,000 records/s and 1 MiB/s of writes per shard, billed per shard-hour), or `on-demand`
 * (scales by itself up to twice the previous peak, billed per GB). Default: 2 shards, 2,000
 * clicks/s; a stream can be resharded in place (docs/edge.md).
 */
export type StreamCapacity = { mode: 'provisioned'; shards: number } | { mode: 'on-demand' };

export const eventStreamCapacity = (value: unknown, contextName = 'eventStreamShards'): StreamCapacity => {
  if (value === undefined) return { mode: 'provisioned', shards: 2 };
  if (value === 'on-demand') return { mode: 'on-demand' };
  const shards = Number(value);
  if (!Number.isInteger(shards) || shards < 1 || shards > 500)
    throw new Error(
      `${contextName} must be a shard count (1-500) or "on-demand", got ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  return { mode: 'provisioned', shards };
};

/** Records per counter batch and how long the consumer waits to fill one: the bound on Link.clicks's delay is set by these. */
export const COUNTER_BATCH_SIZE = 1_000;
export const COUNTER_BATCHING_WINDOW = Duration.seconds(2);

/**
 * Events -> a Kinesis data stream (what the Lambdas put to: random partition keys, so one hot
 * link spreads over every shard) -> two readers:
 * - Firehose -> the event lake bucket;
 * - the click counter consumer (lambdas/click-counters.ts): one counter update per link per
 *   batch, exactly once by per-shard checkpoints on the link (link-counters.ts), so no click
 *   writes a shared item.
 *
 * Firehose -> the lake: dynamic partitioning by a hash shard
 * of the workspace, date and hour (from the record, so late events land in their own hour;
 * lake-layout.ts), records that cannot be partitioned go under `errors/`, server-side encryption
 * of the stream, delivery errors logged to CloudWatch. Records are already newline-terminated
 * JSON lines (no delimiter added, no compression: raw objects live for hours before compaction,
 * and the local lake has the same `.json` files).
 */
export class EventPipeline extends Construct {
  /** What producers put events to (EVENTS_STREAM_NAME). */
  readonly eventStream: Stream;
  readonly deliveryStream: CfnDeliveryStream;
  readonly counters: ServiceFunction;
  /** The counter consumer's failed batches, kept whole (S3). */
  readonly counterFailures: StreamFailures;

  constructor(scope: Construct, id: string, props: EventPipelineProps) {
    super(scope, id);
    const capacity = eventStreamCapacity(this.node.tryGetContext('eventStreamShards'));
    this.eventStream = new Stream(this, 'EventStream', {
      encryption: StreamEncryption.MANAGED,
      retentionPeriod: Duration.hours(STREAM_RETENTION_HOURS),
      ...(capacity.mode === 'on-demand'
        ? { streamMode: StreamMode.ON_DEMAND }
        : { streamMode: StreamMode.PROVISIONED, shardCount: capacity.shards }),
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const logGroup = new LogGroup(this, 'DeliveryLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const logStream = new LogStream(this, 'S3DeliveryLogStream', { logGroup, removalPolicy: RemovalPolicy.DESTROY });

    const role = new Role(this, 'DeliveryRole', { assumedBy: new ServicePrincipal('firehose.amazonaws.com') });
    // Exactly the S3 actions Firehose documents for an S3 destination, on this bucket only.
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        resources: [props.bucket.bucketArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
        resources: [props.bucket.arnForObjects('*')],
      }),
    );
    logGroup.grantWrite(role);
    // What Firehose documents for a Kinesis data stream source.
    role.addToPolicy(
      new PolicyStatement({
        actions: ['kinesis:DescribeStream', 'kinesis:GetShardIterator', 'kinesis:GetRecords', 'kinesis:ListShards'],
        resources: [this.eventStream.streamArn],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(props.bucket.node.defaultChild as never)}.Arn>/*]`,
      reason:
        'Firehose writes objects under dynamic partition prefixes (workspace, date, hour) that are not known in advance; the wildcard is limited to the event lake bucket.',
    });

    // Encryption at rest is the event stream's own (a stream source takes no Firehose SSE setting).
    this.deliveryStream = new CfnDeliveryStream(this, 'Stream', {
      deliveryStreamType: 'KinesisStreamAsSource',
      kinesisStreamSourceConfiguration: { kinesisStreamArn: this.eventStream.streamArn, roleArn: role.roleArn },
      extendedS3DestinationConfiguration: {
        bucketArn: props.bucket.bucketArn,
        roleArn: role.roleArn,
        prefix: eventPartitionPrefix,
        errorOutputPrefix: eventErrorPrefix,
        // Dynamic partitioning needs at least 64 MiB; a minute bounds the delay to the lake.
        bufferingHints: { sizeInMBs: 64, intervalInSeconds: 60 },
        // Gzip: compaction and the raw read scan (and Athena bills) the compressed bytes, ~8.8x
        // fewer on our event lines (bench:lake). The buffer above is counted before compression.
        // CompressionFormat and FileExtension of ExtendedS3DestinationConfiguration:
        // https://docs.aws.amazon.com/firehose/latest/APIReference/API_ExtendedS3DestinationConfiguration.html
        compressionFormat: 'GZIP',
        // `.json.gz` (a set FileExtension replaces the default `.gz`): named like the local lake's
        // files, so a copy of the real lake reads the same, and Athena detects gzip by the extension.
        fileExtension: RAW_FILE_EXTENSION,
        // The bucket's own default encryption (SSE-S3) applies to every object.
        encryptionConfiguration: { noEncryptionConfig: 'NoEncryption' },
        dynamicPartitioningConfiguration: { enabled: true, retryOptions: { durationInSeconds: 300 } },
        processingConfiguration: {
          enabled: true,
          processors: [
            {
              type: 'MetadataExtraction',
              parameters: [
                { parameterName: 'MetadataExtractionQuery', parameterValue: eventPartitionQuery },
                { parameterName: 'JsonParsingEngine', parameterValue: 'JQ-1.6' },
              ],
            },
          ],
        },
        cloudWatchLoggingOptions: {
          enabled: true,
          logGroupName: logGroup.logGroupName,
          logStreamName: logStream.logStreamName,
        },
      },
    });
    // The role's policy must exist before Firehose validates the source and destination.
    this.deliveryStream.node.addDependency(role);
    Validations.of(this.deliveryStream).acknowledge({
      id: 'AwsSolutions-KDF1',
      reason:
        'A delivery stream reading a Kinesis data stream takes no server-side encryption setting of its own: the data stream is encrypted (KMS, aws/kinesis) and the bucket encrypts every object (SSE-S3).',
    });

    // The click counter consumer: reads the stream (one batch per shard at a time, in order, as
    // the per-shard checkpoints need) and may only update link items.
    this.counterFailures = new StreamFailures(this, 'CounterFailures', { consumer: 'click counter consumer' });
    this.counters = new ServiceFunction(this, 'ClickCounters', {
      fn: clickCountersConsumer,
      timeout: Duration.seconds(60),
    });
    // GetItem and UpdateItem on link items only, as its spec declares (functionTableAccess).
    this.counters.bindTable(props.table);
    // The consumer keeps the links it could not count itself (at 18 h); PutObject only.
    this.counterFailures.grantPut(this.counters);
    this.counters.addEnvironment(STREAM_FAILURES_BUCKET_ENV, this.counterFailures.bucket.bucketName);
    this.counters.addEventSource(
      new KinesisEventSource(this.eventStream, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: COUNTER_BATCH_SIZE,
        maxBatchingWindow: COUNTER_BATCHING_WINDOW,
        parallelizationFactor: 1,
        // A failed batch is delivered again, whole (already applied links are skipped). At 18 h
        // the consumer keeps the links it could not count and lets the batch go; should even
        // that fail, the mapping gives the batch up at 20 h, well before the stream drops its
        // records (24 h), and keeps it whole in the same bucket.
        retryAttempts: 10_000,
        maxRecordAge: Duration.hours(CONSUMER_MAX_RECORD_AGE_HOURS),
        onFailure: this.counterFailures.destination(),
      }),
    );
  }

  /** Alarm when records overflow the active-partition limit (they land under errors/ instead of the lake). */
  watch(alarms: ServiceAlarms): void {
    alarms.watchFunction('ClickCounters', this.counters);
    alarms.alarmOn(
      'ClickCountersBehind',
      new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'IteratorAge',
        dimensionsMap: { FunctionName: this.counters.functionName },
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      'The click counter consumer is more than 60 s behind the event stream: Link.clicks lags (failing batches or too few shards)',
      60_000,
    );
    this.counterFailures.watch(
      alarms,
      'ClickCounterFailures',
      'Click counter batches kept in the failures bucket: those clicks are in the lake (analytics) but not in Link.clicks until `admin replay-stream-failures` (docs/event-stream.md)',
    );
    alarms.alarmOn(
      'EventStreamWriteThrottles',
      this.eventStream.metricPutRecordsThrottledRecords({ period: Duration.minutes(5), statistic: 'Sum' }),
      'The event stream throttled writes (add shards: docs/edge.md); the Lambdas retry and spool what still fails',
    );
    alarms.alarmOn(
      'EventPartitionCountExceeded',
      new Metric({
        namespace: 'AWS/Firehose',
        metricName: 'PartitionCountExceeded',
        dimensionsMap: { DeliveryStreamName: this.deliveryStream.ref },
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      'Firehose exceeded its active-partition limit: records went to errors/activePartitionExceeded/ (replay them: docs/analytics.md)',
    );
  }
}
