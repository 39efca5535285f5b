import { describe, expect, it } from 'vitest';
import { rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { partitionLimitFromEnv, replayPaced } from '@shared/events/paced-replay';

/** Old events over 60 hours of 10 workspaces: up to 600 lake partitions. */
const events: EventRecord[] = Array.from({ length: 600 }, (_, i) =>
  blankEvent({
    eventId: `evt_${String(i)}`,
    timestamp: new Date(Date.parse('2026-10-01T00:00:00.000Z') + (i % 60) * 3600_000).toISOString(),
    eventType: 'click',
    workspaceId: `ws_${String(Math.floor(i / 60))}`,
    trafficType: 'human',
  }),
);
const partitionOf = (e: EventRecord) => rawPartitionPath(rawPartitionOf(e));

describe('replays paced under Firehose active-partition limit', () => {
  it('sends at most limit - live partitions per window, waits a window between, every event once', async () => {
    const sends: EventRecord[][] = [];
    const sleeps: number[] = [];
    let window = 0;
    const perWindow = new Map<number, Set<string>>();
    const progress: number[] = [];
    const out = await replayPaced(
      events,
      (batch) => {
        sends.push(batch);
        const set = perWindow.get(window) ?? new Set<string>();
        for (const e of batch) set.add(partitionOf(e));
        perWindow.set(window, set);
        return Promise.resolve();
      },
      {
        partitionLimit: 100,
        livePartitions: 48,
        windowMs: 90_000,
        sleep: (ms) => {
          sleeps.push(ms);
          window += 1;
          return Promise.resolve();
        },
        onProgress: (p) => progress.push(p.sent),
      },
    );
    const distinct = new Set(events.map(partitionOf)).size;
    expect(distinct).toBeGreaterThan(100);
    expect(out.windows).toBe(Math.ceil(distinct / 52));
    for (const partitions of perWindow.values()) expect(partitions.size).toBeLessThanOrEqual(52);
    expect(sleeps).toEqual(Array.from({ length: out.windows - 1 }, () => 90_000));
    expect(
      sends
        .flat()
        .map((e) => e.eventId)
        .sort(),
    ).toEqual(events.map((e) => e.eventId).sort());
    expect(progress.at(-1)).toBe(600);
  });

  it('reads the limit from the environment (a raised quota), else Firehose default of 500', () => {
    expect(partitionLimitFromEnv({})).toBe(500);
    expect(partitionLimitFromEnv({ FIREHOSE_ACTIVE_PARTITION_LIMIT: '5000' })).toBe(5000);
    expect(partitionLimitFromEnv({ FIREHOSE_ACTIVE_PARTITION_LIMIT: 'lots' })).toBe(500);
  });
});
