import middy from '@middy/core';
import type { Context, KinesisStreamEvent } from 'aws-lambda';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import { LAKE_ONLY_PARTITION_PREFIX } from '@shared/events/stream-sink';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';
import { required } from '@shared/util/required';

/**
 * The event stream -> the links' click counters (link-counters.ts): one update per link per
 * batch. A failure throws, so the event source mapping delivers the batch again; what was
 * already applied is skipped by the per-shard checkpoints. The click metrics (Clicks, BotClicks,
 * Redirects by outcome) are written here, once per batch, not by the click path.
 */
const countClicks = async (event: KinesisStreamEvent): Promise<void> => {
  const records = event.Records.map((r) => ({
    shardId: required(r.eventID.split(':')[0], "the shard id in a Kinesis record's eventID"),
    sequenceNumber: r.kinesis.sequenceNumber,
    data: Buffer.from(r.kinesis.data, 'base64').toString('utf8'),
    lakeOnly: r.kinesis.partitionKey.startsWith(LAKE_ONLY_PARTITION_PREFIX),
  }));
  const result = await countClickBatch(records);
  log('info', 'click counters applied', { records: records.length, ...result });
};

/** What the handler resolves to (nothing): named so the middleware chain states it once. */
type CountResult = Awaited<ReturnType<typeof countClicks>>;

export const handler = middy<KinesisStreamEvent, CountResult>(countClicks).use(
  observabilityMiddlewares<KinesisStreamEvent, CountResult, Context>(),
);
