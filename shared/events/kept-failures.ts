/**
 * Failed batches of the stream consumers, kept whole, and their replay.
 *
 * The stream consumers (the click counters on the Kinesis event stream, the outbound publisher
 * on the table's DynamoDB stream, and with `edgeHotLinks` the edge click-log consumer on the
 * Kinesis stream of CloudFront real-time logs) send a batch they give up on (retries exhausted or
 * records too old) to an S3 on-failure destination. For an S3 destination Lambda writes the entire invocation
 * record, the batch's records included, not only its metadata (shard and sequence range) as an
 * SQS or SNS destination does:
 * https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html and
 * https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html. Each object is one
 * JSON document: `requestContext`, `responseContext`, `version`, `timestamp`, the batch's
 * `KinesisBatchInfo` or `DDBStreamBatchInfo`, and `payload`, the invocation's event
 * (`{"Records": [...]}`). The local stack's stand-in of the event stream writes the same documents
 * to a folder (local-event-stream.ts).
 *
 * `replayKeptFailures` runs each kept batch through its consumer's own code again and removes the
 * object once it went through. Replaying is idempotent: the counters skip what their per-shard
 * checkpoints show counted, outbound events keep their ids (receivers deduplicate), and the click
 * events of log lines take their ids from CloudFront's request ids (the pipeline counts an id
 * once: a line converted before its batch failed, or replayed twice, counts nothing twice).
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import type { LakeStore } from '@shared/admin/lake-store';
import { applyClickCounters, CHECKPOINT_HORIZON_MS } from '@shared/clicks/link-counters';
import { convertEdgeClickLogs, edgeClickLogRecordsOf } from '@shared/edge/hot-links/edge-click-events';
import { publishStreamBatch } from '@shared/outbound/publish-stream-batch';
import { dropErased, type ErasedCheck } from '@shared/tenancy/erased-workspaces';
import { getEventSink } from './event-sink';
import { createReplayPacer, type ReplayPacer } from './paced-replay';
import {
  counterRecordsOf,
  keptBatchId,
  parseKeptFailure,
  workspaceOfKinesisRecord,
  workspaceOfTableRecord,
} from './kept-failure-record';

export interface ReplayTotals {
  objects: number;
  replayed: number;
  records: number;
  /** Older than the counters' checkpoint horizon: replaying could count part of them twice. */
  tooOld: number;
  /**
   * Records of erased workspaces, dropped rather than replayed (erased-workspaces.ts); for a
   * click-log batch, the click events of erased workspaces' links.
   */
  recordsDropped: number;
  /** Click events sent to the event stream from replayed click-log batches (edge-answered clicks). */
  edgeClicks: number;
  /** Not a kept failure, or its consumer failed again: left in place. */
  failed: number;
  errors: Array<{ key: string; error: string }>;
}

/**
 * A kept click-log batch through the edge click-log consumer's conversion, its click events sent
 * to the event stream (the same sink the consumer sends to), those of erased workspaces dropped.
 * Lines whose link is gone (deleted, or its workspace erased) convert to nothing. The events are
 * hours old: they go through the run's pacer, as every replay sending old events to the stream
 * (paced-replay.ts). Throws when a record fails again (nothing is lost: the object stays and a
 * later run sends the same ids).
 */
const replayEdgeClickLogs = async (
  records: KinesisStreamRecord[],
  erased: ErasedCheck | undefined,
  pacer: ReplayPacer,
): Promise<{ sent: number; dropped: number }> => {
  let sent = 0;
  let dropped = 0;
  const result = await convertEdgeClickLogs(edgeClickLogRecordsOf(records), async (events) => {
    const live = erased ? await dropErased(events, (e) => e.workspaceId, erased) : { kept: events, dropped: 0 };
    await pacer.send(live.kept, async (batch) => {
      await getEventSink().send(batch);
    });
    sent = live.kept.length;
    dropped = live.dropped;
  });
  if (result.failed.length > 0)
    throw new Error(`${String(result.failed.length)} click-log records failed again (table reads or the event stream)`);
  return { sent, dropped };
};

/**
 * Replays every kept failure under `prefix` through its consumer: event stream batches through
 * the click counters, click-log batches through the edge click-log conversion to the event
 * stream, DynamoDB stream batches through the outbound publisher. A batch that goes
 * through is removed; one that fails again stays (run again later). Batches older than the
 * checkpoint horizon (30 days) are not replayed: the checkpoints that make a counter replay
 * exact may be gone by then. With `erased`, the records of erased workspaces are dropped (a batch
 * kept after its workspace's erasure is not replayed into the counters or to its endpoints).
 */
export const replayKeptFailures = async (options: {
  store: LakeStore;
  prefix?: string;
  now?: Date;
  max?: number;
  erased?: ErasedCheck;
  /** Paces the click events of click-log batches (default: one pacer for the run, from the environment). */
  pacer?: ReplayPacer;
  onProgress?: (totals: ReplayTotals) => void;
}): Promise<ReplayTotals> => {
  const now = options.now ?? new Date();
  const pacer = options.pacer ?? createReplayPacer();
  const oldest = new Date(now.getTime() - CHECKPOINT_HORIZON_MS).toISOString();
  const totals: ReplayTotals = {
    objects: 0,
    replayed: 0,
    records: 0,
    tooOld: 0,
    recordsDropped: 0,
    edgeClicks: 0,
    failed: 0,
    errors: [],
  };
  for await (const key of options.store.list(options.prefix ?? '')) {
    if (options.max !== undefined && totals.objects >= options.max) break;
    totals.objects += 1;
    try {
      const failure = parseKeptFailure(await options.store.getText(key));
      if (failure.timestamp < oldest) {
        totals.tooOld += 1;
        continue;
      }
      let records: number;
      if (failure.kind === 'kinesis') {
        const live = options.erased
          ? await dropErased(failure.records, workspaceOfKinesisRecord, options.erased)
          : { kept: failure.records, dropped: 0 };
        totals.recordsDropped += live.dropped;
        records = live.kept.length;
        await applyClickCounters(counterRecordsOf(live.kept), 16, now, keptBatchId(failure.batch));
      } else if (failure.kind === 'edge-click-logs') {
        const out = await replayEdgeClickLogs(failure.records, options.erased, pacer);
        totals.recordsDropped += out.dropped;
        totals.edgeClicks += out.sent;
        records = failure.records.length;
      } else {
        const live = options.erased
          ? await dropErased(failure.records, workspaceOfTableRecord, options.erased)
          : { kept: failure.records, dropped: 0 };
        totals.recordsDropped += live.dropped;
        records = live.kept.length;
        const out = await publishStreamBatch({ Records: live.kept });
        if (out.batchItemFailures.length > 0) throw new Error('the outbound publisher failed the batch again');
      }
      await options.store.delete([key]);
      totals.replayed += 1;
      totals.records += records;
    } catch (error) {
      totals.failed += 1;
      totals.errors.push({ key, error: (error as Error).message });
    } finally {
      options.onProgress?.(totals);
    }
  }
  return totals;
};
