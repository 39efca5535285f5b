import type { KinesisStreamRecord } from 'aws-lambda';
import { COUNTER_BATCH_SIZE } from '@lib/event-pipeline';
import { KEPT_FAILURE_DAYS } from '@shared/events/consumer-retention';
import { keptKinesisFailure } from '@shared/events/kept-failure-record';
import { extendedRetentionPerShardMonth, keptFailuresPerMillion, type KeptFailuresPerMillion } from './cost';

export interface KeptFailuresCost {
  /** Bytes of a kept batch of COUNTER_BATCH_SIZE click records, and of one record, as Lambda writes them. */
  fullBatchBytes: number;
  singleRecordBytes: number;
  keptDays: number;
  rows: Array<{ case: string; failedShare: number; recordsPerBatch: number } & KeptFailuresPerMillion>;
  /** What 7 days of stream retention would add per provisioned shard a month (not bought: the consumers give up at 20 h). */
  extendedRetentionPerShardMonth: number;
}

/** A click record as the event source mapping hands it to Lambda, its data `eventBytes` long. */
const clickRecord = (sequence: number, eventBytes: number): KinesisStreamRecord => ({
  eventSource: 'aws:kinesis',
  eventID: `shardId-000000000000:${String(sequence).padStart(56, '4')}`,
  eventName: 'aws:kinesis:record',
  eventVersion: '1.0',
  invokeIdentityArn: 'arn:aws:iam::123456789012:role/LinkService-ClickCountersServiceRole-ABCDEFGHIJKL',
  awsRegion: 'us-east-1',
  eventSourceARN: 'arn:aws:kinesis:us-east-1:123456789012:stream/LinkService-EventPipelineEvents-ABCDEFGHIJKL',
  kinesis: {
    kinesisSchemaVersion: '1.0',
    partitionKey: '0123456789abcdef',
    sequenceNumber: String(sequence).padStart(56, '4'),
    data: Buffer.alloc(eventBytes, 'x').toString('base64'),
    approximateArrivalTimestamp: 1_764_000_000.123,
  },
});

const documentBytes = (records: number, eventBytes: number): number =>
  Buffer.byteLength(
    JSON.stringify(
      keptKinesisFailure(
        Array.from({ length: records }, (_, i) => clickRecord(i + 1, eventBytes)),
        'arn:aws:kinesis:us-east-1:123456789012:stream/LinkService-EventPipelineEvents-ABCDEFGHIJKL',
        'RecordAgeExceeded',
        new Date('2026-11-26T00:00:00.000Z'),
      ),
    ),
  );

/**
 * The cost of keeping the click counter consumer's failed batches whole, per million clicks: the
 * kept document's size is measured (the invocation record as the local stand-in writes it, click
 * records of the measured event line size), the failure share is each row's stated assumption.
 */
export const keptFailuresCost = (eventBytes: number): KeptFailuresCost => {
  const fullBatchBytes = documentBytes(COUNTER_BATCH_SIZE, eventBytes);
  const singleRecordBytes = documentBytes(1, eventBytes);
  const row = (label: string, failedShare: number, recordsPerBatch: number, bytes: number) => ({
    case: label,
    failedShare,
    recordsPerBatch,
    ...keptFailuresPerMillion({ documentBytes: bytes, recordsPerBatch, keptDays: KEPT_FAILURE_DAYS, failedShare }),
  });
  return {
    fullBatchBytes,
    singleRecordBytes,
    keptDays: KEPT_FAILURE_DAYS,
    rows: [
      row(
        `every click kept, batches of ${String(COUNTER_BATCH_SIZE)} (the consumer down past 18 h under load)`,
        1,
        COUNTER_BATCH_SIZE,
        fullBatchBytes,
      ),
      row('every click kept, batches of one click (the consumer down on a quiet stream)', 1, 1, singleRecordBytes),
      row(
        `1% of clicks kept, batches of ${String(COUNTER_BATCH_SIZE)} (assumed: the consumer down past 18 h about one day in three months)`,
        0.01,
        COUNTER_BATCH_SIZE,
        fullBatchBytes,
      ),
    ],
    extendedRetentionPerShardMonth: extendedRetentionPerShardMonth(),
  };
};
