import { prices } from './prices';

export interface CostInput {
  /** Lambda memory (MB) and billed duration of one invocation (ms, rounded up to 1 ms). */
  memoryMb: number;
  durationMs: number;
  readUnits: number;
  writeUnits: number;
  /** Event records put to the event stream (Kinesis, read by Firehose into the lake) and their average size in bytes. */
  events: number;
  eventBytes: number;
  /**
   * Clicks the operation records: the counter consumer's share per click. One counter update
   * (`counterWriteUnits`) and one consumer invocation (`consumerDurationMs` at
   * `consumerMemoryMb`) serve `clicksPerBatch` clicks of one link.
   */
  counters?: {
    clicks: number;
    clicksPerBatch: number;
    counterWriteUnits: number;
    consumerDurationMs: number;
    consumerMemoryMb: number;
    /**
     * The correction that makes the counters exact under duplicates (settle-click-counters.ts):
     * one read and at most one update of the link per `clicksPerSettle` clicks (a link's day is
     * settled once per compaction run that finds clicks of it, hourly).
     */
    settle?: { readUnits: number; writeUnits: number; clicksPerSettle: number };
  };
  /**
   * How the request arrives: `api` through API Gateway (the v1 service API), `edge` through the
   * CloudFront front door to a function URL (no API Gateway fee). Default `api`.
   */
  via?: 'api' | 'edge';
  /** The front door's WAF web ACL (on by default, `-c edgeWaf=false`). */
  waf?: boolean;
  /** Bytes the function writes to CloudWatch Logs per invocation (its own lines and the platform's). Default 0. */
  logBytes?: number;
  /** Share of invocations X-Ray records. Default 0. */
  traceRate?: number;
}

export interface CostPerMillion {
  lambda: number;
  httpApi: number;
  dynamodb: number;
  /** The event stream (Kinesis PUT payload units) and Firehose reading it into the lake. */
  events: number;
  /** The counter consumer: its invocations and counter updates, per click at the batch size given. */
  counters: number;
  /** The front door, own columns: CloudFront HTTPS request, the viewer-request function, WAF inspection. */
  cloudFront: number;
  cloudFrontFunction: number;
  waf: number;
  logs: number;
  xray: number;
  total: number;
}

/** The redirect's front-door budget (issue 12), dollars per million: WAF on, WAF off. */
export const frontDoorBudget = { wafOn: 1.75, wafOff: 1.15 } as const;

const GB = 1024 ** 3;
const MILLION = 1_000_000;
const cents = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * Dollars per million operations: Lambda arm64 GB-seconds at the configured memory for the
 * billed duration plus the request fee, one HTTP API request, DynamoDB on-demand read and write
 * request units, the event stream (a Kinesis PUT payload unit per record) and Firehose reading it
 * (each record rounded up to 5 KB) with dynamic partitioning (actual bytes), and the click counter
 * consumer's share of a click at the given batch size. Edge operations come through CloudFront instead of API Gateway: a CloudFront
 * HTTPS request, the viewer-request CloudFront Function and, with WAF on, one WAF request
 * (function URLs themselves cost nothing beyond the Lambda invocation; origin fetches from AWS
 * origins carry no transfer fee; data out to viewers is per GB and not per operation). Also CloudWatch Logs ingestion of the
 * invocation's log lines and X-Ray traces recorded at the route's sampling rate.
 */
export const costPerMillion = (input: CostInput): CostPerMillion => {
  const billedSeconds = Math.ceil(input.durationMs) / 1000;
  const lambda = MILLION * ((input.memoryMb / 1024) * billedSeconds * prices.lambdaArmGbSecond + prices.lambdaRequest);
  const edge = input.via === 'edge';
  const httpApi = edge ? 0 : MILLION * prices.httpApiRequest;
  const cloudFront = edge ? MILLION * prices.cloudFrontHttpsRequest : 0;
  const cloudFrontFunction = edge ? MILLION * prices.cloudFrontFunctionInvocation : 0;
  const waf = edge && (input.waf ?? true) ? MILLION * prices.wafRequest : 0;
  const dynamodb = MILLION * (input.readUnits * prices.dynamoReadUnit + input.writeUnits * prices.dynamoWriteUnit);
  const roundedBytes =
    Math.ceil(input.eventBytes / prices.firehoseRecordRoundingBytes) * prices.firehoseRecordRoundingBytes;
  const putUnits = Math.max(1, Math.ceil(input.eventBytes / prices.kinesisPutPayloadUnitBytes));
  const events =
    MILLION *
    input.events *
    (putUnits * prices.kinesisPutPayloadUnit +
      (roundedBytes / GB) * prices.firehoseIngestGb +
      (input.eventBytes / GB) * prices.firehoseDynamicPartitioningGb);
  const c = input.counters;
  const counters = c
    ? (MILLION *
        c.clicks *
        (c.counterWriteUnits * prices.dynamoWriteUnit +
          (c.consumerMemoryMb / 1024) * (Math.ceil(c.consumerDurationMs) / 1000) * prices.lambdaArmGbSecond +
          prices.lambdaRequest)) /
        c.clicksPerBatch +
      (c.settle
        ? (MILLION *
            c.clicks *
            (c.settle.readUnits * prices.dynamoReadUnit + c.settle.writeUnits * prices.dynamoWriteUnit)) /
          c.settle.clicksPerSettle
        : 0)
    : 0;
  const logs = MILLION * ((input.logBytes ?? 0) / GB) * prices.logsIngestGb;
  const xray = MILLION * (input.traceRate ?? 0) * prices.xrayTraceRecorded;
  return {
    lambda: cents(lambda),
    httpApi: cents(httpApi),
    dynamodb: cents(dynamodb),
    events: cents(events),
    counters: cents(counters),
    cloudFront: cents(cloudFront),
    cloudFrontFunction: cents(cloudFrontFunction),
    waf: cents(waf),
    logs: cents(logs),
    xray: cents(xray),
    total: cents(lambda + httpApi + dynamodb + events + counters + cloudFront + cloudFrontFunction + waf + logs + xray),
  };
};

/** The front door's share of one edge operation, dollars per million (CloudFront + function + WAF). */
export const frontDoorPerMillion = (cost: Pick<CostPerMillion, 'cloudFront' | 'cloudFrontFunction' | 'waf'>) =>
  cents(cost.cloudFront + cost.cloudFrontFunction + cost.waf);

/** What the front door costs a month with no traffic: the WAF web ACL, its rules, the origin secret. */
export const frontDoorAtRestPerMonth = (options: { waf: boolean; wafRules: number }) =>
  cents((options.waf ? prices.wafWebAclMonth + options.wafRules * prices.wafRuleMonth : 0) + prices.secretMonth);

/** One case of the cost of keeping failed batches whole (the stream consumers' S3 on-failure destination). */
export interface KeptFailuresInput {
  /** Bytes of one kept failure as Lambda writes it: the invocation record, its batch's records in base64. */
  documentBytes: number;
  /** Clicks per kept batch (the consumer's batch size: a failing batch is kept whole). */
  recordsPerBatch: number;
  /** Days a kept failure stays before its bucket's lifecycle rule expires it. */
  keptDays: number;
  /** The share of clicks whose batch is kept (0 to 1): the case's stated assumption. */
  failedShare: number;
}

export interface KeptFailuresPerMillion {
  /** One PutObject per kept batch (Lambda's write). */
  put: number;
  /** The kept bytes, S3 Standard, for `keptDays`. */
  storage: number;
  /** The replay: one LIST per 1,000 keys and one GET per batch (the DELETE after it is free). */
  replay: number;
  total: number;
}

/**
 * Dollars per million clicks for keeping failures: what the S3 on-failure destination costs
 * when `failedShare` of the clicks end in a kept batch. The consumers' work on a replay is the
 * counter consumer's own (the Counters column). Stream retention is not part of it: the stream keeps
 * records 24 h, included in the shard-hour price, and the consumers give up at 20 h
 * (`extendedRetentionPerShardMonth` is what keeping them longer would cost).
 */
export const keptFailuresPerMillion = (input: KeptFailuresInput): KeptFailuresPerMillion => {
  const batches = (MILLION * input.failedShare) / input.recordsPerBatch;
  const put = batches * prices.s3PutRequest;
  const storage = ((batches * input.documentBytes) / GB) * prices.s3StandardGbMonth * (input.keptDays / 30);
  const replay = batches * prices.s3GetRequest + Math.ceil(batches / 1000) * prices.s3PutRequest;
  return { put: cents(put), storage: cents(storage), replay: cents(replay), total: cents(put + storage + replay) };
};

/** Extended retention (past the included 24 h) of one provisioned shard for a 30-day month. */
export const extendedRetentionPerShardMonth = (): number => cents(prices.kinesisExtendedRetentionShardHour * 24 * 30);
