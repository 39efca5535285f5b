/**
 * Failed batches of the stream consumers, kept whole, and their replay.
 *
 * Both stream consumers (the click counters on the Kinesis event stream, the outbound publisher
 * on the table's DynamoDB stream) send a batch they give up on (retries exhausted or records too
 * old) to an S3 on-failure destination. For an S3 destination Lambda writes the entire invocation
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
 * checkpoints show counted, and outbound events keep their ids (receivers deduplicate).
 */
import type { LakeStore } from '@shared/admin/lake-store';
import { applyClickCounters, CHECKPOINT_HORIZON_MS } from '@shared/clicks/link-counters';
import { publishStreamBatch } from '@shared/outbound/publish-stream-batch';
import { dropErased, type ErasedCheck } from '@shared/tenancy/erased-workspaces';
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
  /** Records of erased workspaces, dropped rather than replayed (erased-workspaces.ts). */
  recordsDropped: number;
  /** Not a kept failure, or its consumer failed again: left in place. */
  failed: number;
  errors: Array<{ key: string; error: string }>;
}

/**
 * Replays every kept failure under `prefix` through its consumer: Kinesis batches through the
 * click counters, DynamoDB stream batches through the outbound publisher. A batch that goes
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
  onProgress?: (totals: ReplayTotals) => void;
}): Promise<ReplayTotals> => {
  const now = options.now ?? new Date();
  const oldest = new Date(now.getTime() - CHECKPOINT_HORIZON_MS).toISOString();
  const totals: ReplayTotals = {
    objects: 0,
    replayed: 0,
    records: 0,
    tooOld: 0,
    recordsDropped: 0,
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
