import {
  activePartitionsFor,
  FIREHOSE_ACTIVE_PARTITION_LIMIT,
  LAKE_SHARDS,
  rawPartitionOf,
  rawPartitionPath,
} from '@shared/analytics/lake-layout';
import type { EventRecord } from './event-record';

/**
 * A replay of old events opens one Firehose partition per (workspace shard, date, hour) it
 * touches; past the stream's active-partition limit (500 by default,
 * https://docs.aws.amazon.com/firehose/latest/dev/buffering.html) the records go to
 * errors/activePartitionExceeded/ instead of the lake. A partition stays active until its buffer
 * is delivered: 60 s (the stream's buffering interval), up to 1.5x that late. So a replay sends
 * the events of at most `budget` partitions per 90 s window, the budget being the limit less what
 * live traffic holds (LAKE_SHARDS x the hours in flight).
 */
export interface PacingOptions {
  /** The stream's active-partition limit (FIREHOSE_ACTIVE_PARTITION_LIMIT in the environment, else 500). */
  partitionLimit?: number;
  /** Partitions live traffic may hold meanwhile. */
  livePartitions?: number;
  /** How long a partition stays active after its last record. */
  windowMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** After each window: events sent so far, of how many; windows done, of how many. */
  onProgress?: (progress: { sent: number; total: number; window: number; windows: number }) => void;
}

export const REPLAY_WINDOW_MS = 90_000;

/** The stream's active-partition limit from the environment (a raised quota), else Firehose's default. */
export const partitionLimitFromEnv = (env: NodeJS.ProcessEnv = process.env): number => {
  const value = Number(env.FIREHOSE_ACTIVE_PARTITION_LIMIT);
  return Number.isInteger(value) && value > 0 ? value : FIREHOSE_ACTIVE_PARTITION_LIMIT;
};

/** Groups events by their lake partition, then into windows of at most `budget` partitions (in order). */
export const replayWindows = (events: EventRecord[], budget: number): EventRecord[][] => {
  const partitions = new Map<string, EventRecord[]>();
  for (const event of events) {
    const key = rawPartitionPath(rawPartitionOf(event, LAKE_SHARDS));
    const group = partitions.get(key) ?? [];
    group.push(event);
    partitions.set(key, group);
  }
  const groups = [...partitions.values()];
  const windows: EventRecord[][] = [];
  for (let i = 0; i < groups.length; i += budget) windows.push(groups.slice(i, i + budget).flat());
  return windows;
};

/** Sends `events` through `send` (in chunks of 500), paced so the active partitions stay under the limit. */
export const replayPaced = async (
  events: EventRecord[],
  send: (batch: EventRecord[]) => Promise<void>,
  options: PacingOptions = {},
): Promise<{ sent: number; windows: number }> => {
  const limit = options.partitionLimit ?? partitionLimitFromEnv();
  const live = options.livePartitions ?? activePartitionsFor(LAKE_SHARDS);
  const budget = Math.max(1, limit - live);
  const windowMs = options.windowMs ?? REPLAY_WINDOW_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const windows = replayWindows(events, budget);
  let sent = 0;
  for (const [i, window] of windows.entries()) {
    if (i > 0) await sleep(windowMs);
    for (let j = 0; j < window.length; j += 500) await send(window.slice(j, j + 500));
    sent += window.length;
    options.onProgress?.({ sent, total: events.length, window: i + 1, windows: windows.length });
  }
  return { sent, windows: windows.length };
};
