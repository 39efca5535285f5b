/**
 * AWS list prices used for cost per million operations: us-east-1, on-demand, no free tier.
 * Taken on 2026-11-21 from the AWS pricing pages as the team knows them; update the date when
 * you change a number.
 */
export const pricesTakenOn = '2026-11-21';
export const prices = {
  region: 'us-east-1',
  /** Lambda, arm64: per GB-second and per request. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1_000_000,
  /** API Gateway HTTP API: per request (first 300 million a month), counted per 512 KB. */
  httpApiRequest: 1.0 / 1_000_000,
  /** DynamoDB on-demand: per write and read request unit. */
  dynamoWriteUnit: 0.625 / 1_000_000,
  dynamoReadUnit: 0.125 / 1_000_000,
  /** DynamoDB storage, Standard table class, per GB-month (the first 25 GB free is left out). */
  dynamoStorageGbMonth: 0.25,
  /**
   * Kinesis Data Streams, provisioned mode: per PUT payload unit (25 KB of a record, rounded up)
   * and per shard-hour.
   */
  kinesisPutPayloadUnit: 0.014 / 1_000_000,
  kinesisPutPayloadUnitBytes: 25 * 1024,
  kinesisShardHour: 0.015,
  /** Kinesis Data Streams, provisioned: extended retention (records kept past 24 h, up to 7 days) per shard-hour. */
  kinesisExtendedRetentionShardHour: 0.02,
  /** S3 Standard: storage per GB-month; PUT (and LIST) requests per 1,000; GET requests per 1,000 (DELETE is free). */
  s3StandardGbMonth: 0.023,
  s3PutRequest: 0.005 / 1000,
  s3GetRequest: 0.0004 / 1000,
  /**
   * Firehose ingestion per GB, each record rounded up to 5 KB (a Kinesis data stream as source is
   * billed as Direct PUT is); dynamic partitioning per GB.
   */
  firehoseIngestGb: 0.029,
  firehoseRecordRoundingBytes: 5 * 1024,
  firehoseDynamicPartitioningGb: 0.02,
  /** CloudFront, United States: HTTPS requests ($0.0100 per 10,000); CloudFront Functions invocations. */
  cloudFrontHttpsRequest: 0.01 / 10_000,
  cloudFrontFunctionInvocation: 0.1 / 1_000_000,
  /**
   * CloudFront KeyValueStore: per read from a CloudFront Function (`cf.kvs().get`, a missing key
   * included), $0.03 per million (aws.amazon.com/cloudfront/pricing/, "CloudFront Functions").
   */
  cloudFrontKvsRead: 0.03 / 1_000_000,
  /**
   * CloudFront real-time logs: $0.01 per 1,000,000 log lines generated (aws.amazon.com/cloudfront/pricing/,
   * "Additional features"), besides the Kinesis data stream they are written to.
   */
  cloudFrontRealtimeLogLine: 0.01 / 1_000_000,
  /**
   * Kinesis Data Streams, on-demand mode (aws.amazon.com/kinesis/data-streams/pricing/): data in and
   * data out per GB, each record rounded up to the nearest 1 KB (1,024 bytes), and a fixed charge
   * per stream-hour.
   */
  kinesisOnDemandInGb: 0.08,
  kinesisOnDemandOutGb: 0.04,
  kinesisOnDemandRoundingBytes: 1024,
  kinesisOnDemandStreamHour: 0.04,
  /** WAF: per request inspected (up to 1,500 WCUs), per web ACL and per rule (managed group counts as one) a month. */
  wafRequest: 0.6 / 1_000_000,
  wafWebAclMonth: 5,
  wafRuleMonth: 1,
  /** Secrets Manager: per secret a month (the origin-verify secret); per 10,000 API calls. */
  secretMonth: 0.4,
  secretApiCall: 0.05 / 10_000,
  /** CloudWatch Logs ingestion (standard class) per GB. */
  logsIngestGb: 0.5,
  /** X-Ray: per trace recorded (beyond the free tier). */
  xrayTraceRecorded: 5 / 1_000_000,
} as const;

/**
 * Log and trace volumes the cost model assumes where the bench cannot measure them: the Lambda
 * platform's own JSON lines per invocation (platform.start and platform.report, the latter with
 * the X-Ray trace fields; about 600 bytes together), and the share of requests X-Ray records.
 */
export const telemetryAssumptions = {
  /**
   * Lambda's platform lines (START/END/REPORT) are INFO: with the system log level WARN on every
   * function (lib/service-function.ts) none is written.
   */
  platformLogBytesPerInvocation: 0,
  /** lib/trace-sampling.ts: the click path's rule. */
  clickPathTraceRate: 0.001,
  /** The account's default rule beyond its 1 request per second reservoir. */
  defaultTraceRate: 0.05,
} as const;
