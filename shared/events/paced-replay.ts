import {
  activePartitionsFor,
  FIREHOSE_ACTIVE_PARTITION_LIMIT,
  LAKE_SHARDS,
  rawPartitionOf,
  rawPartitionPath,
} from '@shared/analytics/lake/lake-layout';
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

/** Events grouped by their lake partition (shard, date, hour), in first-seen order. */
const byPartition = (events: EventRecord[]): Map<string, EventRecord[]> => {
  const partitions = new Map<string, EventRecord[]>();
  for (const event of events) {
    const key = rawPartitionPath(rawPartitionOf(event, LAKE_SHARDS));
    const group = partitions.get(key) ?? [];
    group.push(event);
    partitions.set(key, group);
  }
  return partitions;
};

/** The most records one `send` gets (a PutRecords call's record limit). */
const SEND_CHUNK = 500;

/**
 * The pacing itself, for replays that read their events all at once (`replayPaced`) or a few at a
 * time (`admin replay-events`, message by message): a window admits up to `budget` partitions;
 * events of a partition not yet open in a full window wait `windowMs` for the next one (what the
 * window holds is sent first). Partitions stay counted for the whole window, across calls.
 */
export interface ReplayPacer {
  /** Partitions per window: the limit less what live traffic holds (at least 1). */
  readonly budget: number;
  /** Windows opened so far. */
  readonly windows: number;
  /** Events sent so far. */
  readonly sent: number;
  /** Sends `events` through `send` in chunks of at most 500, waiting for a new window whenever this one is full. */
  send(events: EventRecord[], send: (batch: EventRecord[]) => Promise<void>): Promise<void>;
}

export const createReplayPacer = (
  options: Omit<PacingOptions, 'onProgress'> & {
    /** After each window's share of a `send` call: events sent so far, windows opened. */
    onSent?: (progress: { sent: number; windows: number }) => void;
  } = {},
): ReplayPacer => {
  const limit = options.partitionLimit ?? partitionLimitFromEnv();
  const live = options.livePartitions ?? activePartitionsFor(LAKE_SHARDS);
  const budget = Math.max(1, limit - live);
  const windowMs = options.windowMs ?? REPLAY_WINDOW_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let open = new Set<string>();
  let windows = 0;
  let sent = 0;
  return {
    budget,
    get windows() {
      return windows;
    },
    get sent() {
      return sent;
    },
    async send(events, send) {
      let pending: EventRecord[] = [];
      const flush = async () => {
        if (pending.length === 0) return;
        for (let i = 0; i < pending.length; i += SEND_CHUNK) await send(pending.slice(i, i + SEND_CHUNK));
        sent += pending.length;
        pending = [];
        options.onSent?.({ sent, windows });
      };
      for (const [partition, group] of byPartition(events)) {
        if (!open.has(partition)) {
          if (open.size >= budget) {
            await flush();
            await sleep(windowMs);
            open = new Set();
          }
          if (open.size === 0) windows += 1;
          open.add(partition);
        }
        pending.push(...group);
      }
      await flush();
    },
  };
};

/** Sends `events` through `send` (in chunks of 500), paced so the active partitions stay under the limit. */
export const replayPaced = async (
  events: EventRecord[],
  send: (batch: EventRecord[]) => Promise<void>,
  options: PacingOptions = {},
): Promise<{ sent: number; windows: number }> => {
  let windows = 0;
  const pacer = createReplayPacer({
    ...options,
    onSent: (p) => options.onProgress?.({ sent: p.sent, total: events.length, window: p.windows, windows }),
  });
  windows = Math.ceil(byPartition(events).size / pacer.budget);
  await pacer.send(events, send);
  return { sent: pacer.sent, windows: pacer.windows };
};
