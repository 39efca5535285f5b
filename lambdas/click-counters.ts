import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Context, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import { CounterUpdatesFailed, recordsOfLinks } from '@shared/clicks/link-counters';
import { COUNTER_GIVE_UP_HOURS, STREAM_FAILURES_BUCKET_ENV } from '@shared/events/consumer-retention';
import { counterRecordsOf, keptKinesisFailure } from '@shared/events/kept-failure-record';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';

let s3: S3Client | undefined;

/** Keeps the records of the links not counted in the failures bucket (kept-failures.ts replays them). */
const keep = async (records: KinesisStreamRecord[], now: Date): Promise<string> => {
  const bucket = process.env[STREAM_FAILURES_BUCKET_ENV];
  if (!bucket) throw new Error(`${STREAM_FAILURES_BUCKET_ENV} is not set: nowhere to keep the failed links`);
  const first = records[0];
  const doc = keptKinesisFailure(records, first?.eventSourceARN ?? '', 'RetryAttemptsExhausted', now);
  const key = `click-counters/${doc.KinesisBatchInfo?.shardId ?? 'unknown'}/${now.toISOString().slice(0, 10)}/${now.toISOString()}-${randomUUID()}.json`;
  s3 ??= new S3Client({});
  await s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(doc), ContentType: 'application/json' }),
  );
  return key;
};

/**
 * The event stream -> the links' click counters (link-counters.ts): one update per link per
 * batch. A failure throws, so the event source mapping delivers the batch again; what was
 * already applied is skipped by the per-shard checkpoints. Once the batch's oldest record is
 * 18 hours old (the mapping gives a batch up at 20 h, the stream drops records at 24 h), the
 * records of the links still not counted are kept whole in the failures bucket and the batch is
 * let go: later batches move the shard's checkpoint on, and the kept records are counted by
 * `admin replay-stream-failures`, exactly once per link. If even that write fails, the mapping
 * keeps the whole batch in the same bucket at 20 h (its S3 on-failure destination). The click
 * metrics (Clicks, BotClicks, Redirects by outcome) are written here, once per batch, not by the
 * click path.
 */
const countClicks = async (event: KinesisStreamEvent): Promise<undefined> => {
  const records = counterRecordsOf(event.Records);
  try {
    const result = await countClickBatch(records);
    log('info', 'click counters applied', { records: records.length, ...result });
  } catch (error) {
    const now = new Date();
    const oldest = Math.min(...event.Records.map((r) => r.kinesis.approximateArrivalTimestamp * 1000));
    if (!(error instanceof CounterUpdatesFailed) || now.getTime() - oldest < COUNTER_GIVE_UP_HOURS * 3600_000)
      throw error;
    const failed = new Set(recordsOfLinks(records, error.failed));
    const key = await keep(
      event.Records.filter((_, i) => {
        const record = records[i];
        return record !== undefined && failed.has(record);
      }),
      now,
    );
    log('error', 'click counters given up for some links; their records are kept for replay', {
      links: error.failed.length,
      records: failed.size,
      key,
      error: error.message,
    });
  }
  return undefined;
};

export const handler = middy<KinesisStreamEvent, undefined>(countClicks).use(
  observabilityMiddlewares<KinesisStreamEvent, undefined, Context>(),
);
