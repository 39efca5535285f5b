import { prices } from './prices';

export interface CostInput {
  /** Lambda memory (MB) and billed duration of one invocation (ms, rounded up to 1 ms). */
  memoryMb: number;
  durationMs: number;
  readUnits: number;
  writeUnits: number;
  /** Event records sent to Firehose and their average size in bytes. */
  events: number;
  eventBytes: number;
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
  firehose: number;
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
 * request units, Firehose ingestion (each record rounded up to 5 KB) and dynamic partitioning
 * (actual bytes). Edge operations come through CloudFront instead of API Gateway: a CloudFront
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
  const roundedBytes = Math.ceil(input.eventBytes / prices.firehoseRecordRoundingBytes) * prices.firehoseRecordRoundingBytes;
  const firehose =
    MILLION * input.events * ((roundedBytes / GB) * prices.firehoseIngestGb + (input.eventBytes / GB) * prices.firehoseDynamicPartitioningGb);
  const logs = MILLION * ((input.logBytes ?? 0) / GB) * prices.logsIngestGb;
  const xray = MILLION * (input.traceRate ?? 0) * prices.xrayTraceRecorded;
  return {
    lambda: cents(lambda),
    httpApi: cents(httpApi),
    dynamodb: cents(dynamodb),
    firehose: cents(firehose),
    cloudFront: cents(cloudFront),
    cloudFrontFunction: cents(cloudFrontFunction),
    waf: cents(waf),
    logs: cents(logs),
    xray: cents(xray),
    total: cents(lambda + httpApi + dynamodb + firehose + cloudFront + cloudFrontFunction + waf + logs + xray),
  };
};

/** The front door's share of one edge operation, dollars per million (CloudFront + function + WAF). */
export const frontDoorPerMillion = (cost: Pick<CostPerMillion, 'cloudFront' | 'cloudFrontFunction' | 'waf'>) =>
  cents(cost.cloudFront + cost.cloudFrontFunction + cost.waf);

/** What the front door costs a month with no traffic: the WAF web ACL, its rules, the origin secret. */
export const frontDoorAtRestPerMonth = (options: { waf: boolean; wafRules: number }) =>
  cents((options.waf ? prices.wafWebAclMonth + options.wafRules * prices.wafRuleMonth : 0) + prices.secretMonth);
