import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnRealtimeLogConfig, type CfnDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IStream, Stream, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { REALTIME_LOG_FIELDS } from '@shared/edge/hot-links/realtime-log';
import { edgeClickLogsConsumer } from '@shared/routes/consumer-specs';
import type { StreamCapacity } from './event-pipeline';
import type { ServiceAlarms } from './service-alarms';
import { ServiceFunction } from './service-function';
import { StreamFailures } from './stream-failures';

/** Every viewer request is logged: each edge-answered click must be counted. */
export const REALTIME_LOG_SAMPLING_RATE = 100;

/** The log stream keeps records a day (Kinesis's default); the consumer gives a record up at 20 h. */
const LOG_STREAM_RETENTION = Duration.hours(24);
const CONSUMER_MAX_RECORD_AGE = Duration.hours(20);
/** Log records per consumer batch, and how long the mapping gathers them (the click-count lag). */
const CONSUMER_BATCH_SIZE = 1_000;
const CONSUMER_BATCHING_WINDOW = Duration.seconds(1);

export interface EdgeClickLogsProps {
  /** The link distribution: its default behaviour (the link paths) gets the real-time log configuration. */
  distribution: CfnDistribution;
  table: ITableV2;
  /** The event stream the click events go to (the same sink as the origin's clicks). */
  eventStream: IStream;
  /**
   * The log stream's capacity (context `edgeClickLogShards`, else the event stream's own): every
   * request of the link paths is one log record, so it carries the same peak as the event stream.
   */
  capacity: StreamCapacity;
  alarms: ServiceAlarms;
}

/**
 * Counting the clicks the edge answers (only with the `edgeHotLinks` context on, docs/edge.md):
 * CloudFront real-time logs of the link paths (sampling 100 %, the fields of
 * `REALTIME_LOG_FIELDS`, in that order) into a Kinesis data stream sized for the peak, through a role
 * CloudFront assumes that may only describe and put records on that stream; the consumer
 * function (`edgeClickLogsConsumer`) turns the hot-link function's redirects into click events on
 * the event stream, reporting batch item failures. A batch still failing when its records reach
 * the consumer's maximum record age (20 h) is kept whole in its failures bucket (`StreamFailures`,
 * stack output `EdgeClickLogFailuresBucketName`, alarmed) for `admin replay-stream-failures`.
 * CloudFront drops the log records a throttled stream refuses, so throttled writes raise an alarm.
 */
export class EdgeClickLogs extends Construct {
  readonly stream: Stream;
  readonly logConfig: CfnRealtimeLogConfig;
  readonly role: Role;
  readonly fn: ServiceFunction;
  /** The batches the consumer gave up on, kept whole (the mapping's S3 on-failure destination). */
  readonly failures: StreamFailures;

  constructor(scope: Construct, id: string, props: EdgeClickLogsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Provisioned (the default, as the event stream): shards for the peak at 1,000 records/s
    // each, billed per shard-hour and 25 KB put unit, so a ~700-byte log line costs a put unit
    // instead of on-demand's 1 KB written and 1 KB read; `on-demand` takes twice its previous peak
    // at once, at about $0.10 more per million lines (docs/edge.md).
    this.stream = new Stream(this, 'Stream', {
      ...(props.capacity.mode === 'on-demand'
        ? { streamMode: StreamMode.ON_DEMAND }
        : { streamMode: StreamMode.PROVISIONED, shardCount: props.capacity.shards }),
      encryption: StreamEncryption.MANAGED,
      retentionPeriod: LOG_STREAM_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.role = new Role(this, 'DeliveryRole', {
      assumedBy: new ServicePrincipal('cloudfront.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
      description: 'CloudFront real-time logs of the link distribution -> the edge click-log stream',
    });
    // What CloudFront documents for a real-time log endpoint, on this stream only (the stream is
    // encrypted with the AWS managed key aws/kinesis, which needs no KMS grant).
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['kinesis:DescribeStreamSummary', 'kinesis:DescribeStream', 'kinesis:PutRecord', 'kinesis:PutRecords'],
        resources: [this.stream.streamArn],
      }),
    );

    this.logConfig = new CfnRealtimeLogConfig(this, 'LogConfig', {
      name: `${stack.stackName}-edge-clicks`.slice(0, 64),
      samplingRate: REALTIME_LOG_SAMPLING_RATE,
      fields: [...REALTIME_LOG_FIELDS],
      endPoints: [
        {
          streamType: 'Kinesis',
          kinesisStreamConfig: { roleArn: this.role.roleArn, streamArn: this.stream.streamArn },
        },
      ],
    });
    this.logConfig.node.addDependency(this.role);
    props.distribution.addPropertyOverride(
      'DistributionConfig.DefaultCacheBehavior.RealtimeLogConfigArn',
      this.logConfig.attrArn,
    );

    this.fn = new ServiceFunction(this, 'Consumer', { fn: edgeClickLogsConsumer, timeout: Duration.seconds(60) });
    this.fn.bindTable(props.table);
    this.fn.bindEvents(props.eventStream);
    this.failures = new StreamFailures(this, 'Failures', { consumer: 'edge click-log consumer' });
    this.fn.addEventSource(
      new KinesisEventSource(this.stream, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: CONSUMER_BATCH_SIZE,
        maxBatchingWindow: CONSUMER_BATCHING_WINDOW,
        // As the click counters on the event stream: a failed batch is delivered again (from the
        // first failed record: batch item failures; converted records give the same event ids)
        // until it goes through or its records are 20 h old, well before the stream drops them
        // (24 h); then it is kept whole, with its log lines, in the failures bucket.
        reportBatchItemFailures: true,
        retryAttempts: 10_000,
        maxRecordAge: CONSUMER_MAX_RECORD_AGE,
        onFailure: this.failures.destination(),
      }),
    );

    props.alarms.watchFunction('EdgeClickLogs', this.fn);
    props.alarms.alarmOn(
      'EdgeClickLogsBehind',
      new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'IteratorAge',
        dimensionsMap: { FunctionName: this.fn.functionName },
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      'The edge click-log consumer is more than 60 s behind: edge-answered clicks reach counters and analytics late',
      60_000,
    );
    this.failures.watch(
      props.alarms,
      'EdgeClickLogFailures',
      'Click-log batches the edge click-log consumer gave up on (20 h), kept whole: those edge-answered clicks are not counted until `admin replay-stream-failures` (docs/edge.md)',
    );
    const period = Duration.minutes(5);
    props.alarms.alarmOn(
      'EdgeClickLogThrottles',
      new MathExpression({
        expression: 'FILL(throttled, 0) + FILL(exceeded, 0)',
        usingMetrics: {
          throttled: this.stream.metricPutRecordsThrottledRecords({ period, statistic: 'Sum' }),
          exceeded: this.stream.metricWriteProvisionedThroughputExceeded({ period, statistic: 'Sum' }),
        },
        period,
        label: 'Edge click-log records throttled',
      }),
      'The edge click-log stream throttled CloudFront: CloudFront drops the log records it refuses, so those edge-answered clicks are not counted (raise the stream or turn edgeHotLinks off: docs/edge.md)',
    );
  }
}
