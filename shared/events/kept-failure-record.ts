/**
 * A failed batch of a stream consumer as Lambda keeps it in an S3 on-failure destination (the
 * whole invocation record, the batch's records included); kept-failures.ts replays them.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import type { CounterStreamRecord } from '@shared/clicks/link-counters';
import { parseRealtimeLogLine, realtimeLogLines } from '@shared/edge/hot-links/realtime-log';
import { LAKE_ONLY_PARTITION_PREFIX } from './stream-sink';

/** The batch information Lambda puts in an invocation record (the same for both stream kinds). */
export interface StreamBatchInfo {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  approximateArrivalOfFirstRecord?: string;
  approximateArrivalOfLastRecord?: string;
  batchSize: number;
  streamArn: string;
}

/** One kept failure, as Lambda writes it to an S3 on-failure destination. */
export interface KeptFailureDocument {
  requestContext?: { requestId?: string; functionArn?: string; condition?: string; approximateInvokeCount?: number };
  responseContext?: { statusCode?: number; executedVersion?: string; functionError?: string };
  version: string;
  timestamp: string;
  KinesisBatchInfo?: StreamBatchInfo;
  DDBStreamBatchInfo?: StreamBatchInfo;
  /** The invocation's event; a JSON string or the object itself. */
  payload: string | { Records: unknown[] };
}

/**
 * `kinesis`: a batch of the event stream (each record's data one JSON event: the click counters);
 * `edge-click-logs`: a batch of the edge click-log stream (each record's data a CloudFront
 * real-time log line: the edge click-log consumer); `dynamodb`: a batch of the table's stream
 * (the outbound publisher).
 */
export type KeptFailure =
  | { kind: 'kinesis'; timestamp: string; batch: StreamBatchInfo; records: KinesisStreamRecord[] }
  | { kind: 'edge-click-logs'; timestamp: string; batch: StreamBatchInfo; records: KinesisStreamRecord[] }
  | { kind: 'dynamodb'; timestamp: string; batch: StreamBatchInfo; records: DynamoDBRecord[] };

/** A Kinesis record's data, as text. */
export const kinesisDataOf = (record: KinesisStreamRecord): string =>
  Buffer.from(record.kinesis.data, 'base64').toString('utf8');

/**
 * Whether a Kinesis record carries real-time log lines (tab-separated values of the configured
 * fields) rather than an event (a JSON object): only the edge click-log stream's records do.
 */
export const isRealtimeLogRecord = (record: KinesisStreamRecord): boolean => {
  const data = kinesisDataOf(record);
  if (data.trimStart().startsWith('{')) return false;
  const [first] = realtimeLogLines(data);
  return first !== undefined && parseRealtimeLogLine(first) !== null;
};

/** Reads one kept failure; throws on a document that is not one (it is left where it is). */
export const parseKeptFailure = (text: string): KeptFailure => {
  const doc = JSON.parse(text) as Partial<KeptFailureDocument>;
  if (doc.payload === undefined || typeof doc.timestamp !== 'string')
    throw new Error('not a failed-batch record with its payload (no `payload` or `timestamp`)');
  const payload = (typeof doc.payload === 'string' ? JSON.parse(doc.payload) : doc.payload) as { Records?: unknown };
  if (!Array.isArray(payload.Records)) throw new Error('the payload holds no `Records`');
  if (doc.KinesisBatchInfo)
    return {
      kind: (payload.Records as KinesisStreamRecord[]).some(isRealtimeLogRecord) ? 'edge-click-logs' : 'kinesis',
      timestamp: doc.timestamp,
      batch: doc.KinesisBatchInfo,
      records: payload.Records as KinesisStreamRecord[],
    };
  if (doc.DDBStreamBatchInfo)
    return {
      kind: 'dynamodb',
      timestamp: doc.timestamp,
      batch: doc.DDBStreamBatchInfo,
      records: payload.Records as DynamoDBRecord[],
    };
  throw new Error('neither `KinesisBatchInfo` nor `DDBStreamBatchInfo`');
};

/** The workspace of a kept Kinesis record: its event's `workspaceId` (undefined if unreadable). */
export const workspaceOfKinesisRecord = (record: KinesisStreamRecord): string | undefined => {
  try {
    const event = JSON.parse(kinesisDataOf(record)) as { workspaceId?: unknown };
    return typeof event.workspaceId === 'string' ? event.workspaceId : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The workspace of a kept table stream record: its item's (new or old image) `workspaceId`, or
 * that of the event an outbox or replay item carries.
 */
export const workspaceOfTableRecord = (record: DynamoDBRecord): string | undefined => {
  for (const image of [record.dynamodb?.NewImage, record.dynamodb?.OldImage]) {
    const id = image?.workspaceId?.S ?? image?.event?.M?.workspaceId?.S;
    if (id !== undefined) return id;
  }
  return undefined;
};

/**
 * The id a replay counts a kept batch under (the same for copies of one batch): its shard and
 * sequence range.
 */
export const keptBatchId = (batch: StreamBatchInfo): string =>
  createHash('sha256')
    .update(`${batch.shardId}\u0000${batch.startSequenceNumber}\u0000${batch.endSequenceNumber}`)
    .digest('hex')
    .slice(0, 24);

/** The counter consumer's view of Kinesis records (the Lambda handler and the replay share it). */
export const counterRecordsOf = (records: KinesisStreamRecord[]): CounterStreamRecord[] =>
  records.map((r) => ({
    shardId: r.eventID.split(':')[0] ?? '',
    sequenceNumber: r.kinesis.sequenceNumber,
    data: Buffer.from(r.kinesis.data, 'base64').toString('utf8'),
    lakeOnly: r.kinesis.partitionKey.startsWith(LAKE_ONLY_PARTITION_PREFIX),
  }));

/** Builds the document Lambda writes for a Kinesis batch (the local stand-in writes these). */
export const keptKinesisFailure = (
  records: KinesisStreamRecord[],
  streamArn: string,
  condition: string,
  now: Date,
): KeptFailureDocument => {
  const first = records[0];
  const last = records.at(-1);
  return {
    requestContext: { condition, approximateInvokeCount: 1 },
    version: '1.0',
    timestamp: now.toISOString(),
    KinesisBatchInfo: {
      shardId: first?.eventID.split(':')[0] ?? '',
      startSequenceNumber: first?.kinesis.sequenceNumber ?? '',
      endSequenceNumber: last?.kinesis.sequenceNumber ?? '',
      batchSize: records.length,
      streamArn,
    },
    payload: JSON.stringify({ Records: records }),
  };
};
