import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_BATCH_SIZE } from '@lib/event-pipeline';
import {
  applyClickCounters,
  SETTLED_DAYS,
  settledBots,
  settledHumans,
  type CounterStreamRecord,
} from '@shared/clicks/link-counters';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { marshall } from '@aws-sdk/util-dynamodb';
import { median, round } from './stats';
import type { World } from './world';

export interface CounterWork {
  /** Clicks of one link in one consumer batch at the hot link's rate (the event source mapping's batch size). */
  hotClicksPerBatch: number;
  /**
   * Write units of one counter update: the link item's size in steady state (as measured, plus the
   * settled counts of `SETTLED_DAYS` days kept for the correction), in 1 KB units (an update is
   * billed on the larger of the item before and after).
   */
  counterWriteUnits: number;
  linkItemBytes: number;
  /**
   * The correction of one link's day after a compaction (settle-click-counters.ts): one strongly
   * consistent GetItem (4 KB units) and, when the day has live hours to fold in or a copy to take
   * off, one UpdateItem of the same item.
   */
  settleReadUnits: number;
  settleWriteUnits: number;
  /** The consumer's work for one batch of that size on one link (median), ms. */
  consumerDurationMs: number;
  /** The consumer's memory (lib/service-function.ts default). */
  consumerMemoryMb: number;
}

/** About DynamoDB's item size (attribute names plus values), from the item's wire JSON: a slight overestimate, so the units are not understated. */
const itemBytes = (item: Record<string, unknown>): number =>
  JSON.stringify(marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true })).length;

/**
 * The click counter consumer at the hot link's batch size: `runs` batches of COUNTER_BATCH_SIZE
 * click records on the bench link, through `applyClickCounters` against DynamoDB Local (one
 * update each), and the link item's size for the update's write units.
 */
export const measureCounterWork = async (world: World, runs: number, memoryMb: number): Promise<CounterWork> => {
  const shardId = `shardId-bench-${process.pid}`;
  let sequence = 0n;
  const batch = (): CounterStreamRecord[] =>
    Array.from({ length: COUNTER_BATCH_SIZE }, () => {
      sequence += 1n;
      return {
        shardId,
        sequenceNumber: String(sequence),
        data: JSON.stringify({
          eventType: 'click',
          linkId: world.link.id,
          trafficType: 'human',
          timestamp: new Date().toISOString(),
        }),
      };
    });
  await applyClickCounters(batch());
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const records = batch();
    const start = performance.now();
    await applyClickCounters(records);
    durations.push(performance.now() - start);
  }
  const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.link(world.link.id) }));
  // Steady state: a link clicked every day also holds its settled counts (humans and bots) of the last SETTLED_DAYS days.
  const settled: Record<string, number> = {};
  for (let i = 0; i < SETTLED_DAYS; i++) {
    const day = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
    settled[settledHumans(day)] = 100_000;
    settled[settledBots(day)] = 1_000;
  }
  const bytes = out.Item ? itemBytes({ ...out.Item, ...settled }) : 0;
  return {
    hotClicksPerBatch: COUNTER_BATCH_SIZE,
    counterWriteUnits: Math.max(1, Math.ceil(bytes / 1024)),
    linkItemBytes: bytes,
    settleReadUnits: Math.max(1, Math.ceil(bytes / 4096)),
    settleWriteUnits: Math.max(1, Math.ceil(bytes / 1024)),
    consumerDurationMs: round(median(durations)),
    consumerMemoryMb: memoryMb,
  };
};
