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
  /** Bytes the function writes to CloudWatch Logs per invocation (its own lines and the platform's). */
  logBytes: number;
  /** Share of invocations X-Ray records. */
  traceRate: number;
}

export interface CostPerMillion {
  lambda: number;
  httpApi: number;
  dynamodb: number;
  firehose: number;
  logs: number;
  xray: number;
  total: number;
}

const GB = 1024 ** 3;
const MILLION = 1_000_000;
const cents = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * Dollars per million operations: Lambda arm64 GB-seconds at the configured memory for the
 * billed duration plus the request fee, one HTTP API request, DynamoDB on-demand read and write
 * request units, Firehose ingestion (each record rounded up to 5 KB) and dynamic partitioning
 * (actual bytes), CloudWatch Logs ingestion of the invocation's log lines, and X-Ray traces
 * recorded at the route's sampling rate.
 */
export const costPerMillion = (input: CostInput): CostPerMillion => {
  const billedSeconds = Math.ceil(input.durationMs) / 1000;
  const lambda = MILLION * ((input.memoryMb / 1024) * billedSeconds * prices.lambdaArmGbSecond + prices.lambdaRequest);
  const httpApi = MILLION * prices.httpApiRequest;
  const dynamodb = MILLION * (input.readUnits * prices.dynamoReadUnit + input.writeUnits * prices.dynamoWriteUnit);
  const roundedBytes = Math.ceil(input.eventBytes / prices.firehoseRecordRoundingBytes) * prices.firehoseRecordRoundingBytes;
  const firehose =
    MILLION * input.events * ((roundedBytes / GB) * prices.firehoseIngestGb + (input.eventBytes / GB) * prices.firehoseDynamicPartitioningGb);
  const logs = MILLION * (input.logBytes / GB) * prices.logsIngestGb;
  const xray = MILLION * input.traceRate * prices.xrayTraceRecorded;
  return {
    lambda: cents(lambda),
    httpApi: cents(httpApi),
    dynamodb: cents(dynamodb),
    firehose: cents(firehose),
    logs: cents(logs),
    xray: cents(xray),
    total: cents(lambda + httpApi + dynamodb + firehose + logs + xray),
  };
};
