import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createSqsSpool } from '@shared/events/event-spool';
import { createReplayPacer } from '@shared/events/paced-replay';
import { redriveSpooledMessages } from '@shared/events/redrive-events';
import { replaySpool } from '@shared/events/replay-spool';
import type { StreamSink } from '@shared/events/stream-sink';
import type { ErasedCheck } from '@shared/tenancy/erased-workspaces';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { startLocalSqs, type LocalSqs } from '@test/support/sqs-loopback';

/**
 * `admin replay-events` drains the spool (or its dead-letter queue, events a day old or more):
 * every old hour it sends opens a Firehose partition, so the sends go through the same pacer as
 * `replay-lake-errors` (paced-replay.ts); events of erased workspaces are dropped.
 */
let sqs: LocalSqs;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(() => sqs.stop());

const sqsClient = () =>
  new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: loopbackCredentials });
const event = (i: number, workspaceId: string, hour: number): EventRecord =>
  blankEvent({
    eventId: `evt_${String(i)}`,
    timestamp: new Date(Date.parse('2026-10-01T00:00:00.000Z') + hour * 3600_000).toISOString(),
    eventType: 'click',
    workspaceId,
    trafficType: 'human',
  });
const partitionOf = (e: EventRecord) => rawPartitionPath(rawPartitionOf(e));

/** A sink that records what each window received (the window advances when the pacer sleeps). */
const recordingSink = () => {
  const state = { window: 0, perWindow: new Map<number, Set<string>>(), delivered: [] as EventRecord[] };
  const sink: StreamSink = {
    send: () => Promise.reject(new Error('replays deliver, they never send')),
    deliver: (events) => {
      const set = state.perWindow.get(state.window) ?? new Set<string>();
      for (const e of events) set.add(partitionOf(e));
      state.perWindow.set(state.window, set);
      state.delivered.push(...events);
      return Promise.resolve({ undelivered: [], reasons: [] });
    },
  };
  return { sink, state };
};

describe('admin replay-events: paced under the active-partition limit, erased workspaces dropped', () => {
  it('drains the queue message by message, at most limit - live partitions per window, every event once, progress shown', async () => {
    const queue = 'dead-letters-paced';
    // 40 messages of 5 events over 10 old hours of 12 workspaces: up to 120 partitions.
    const spool = createSqsSpool({ queueUrl: sqs.queueUrl(queue), region: 'us-east-1', client: sqsClient() });
    const events = Array.from({ length: 200 }, (_, i) => event(i, `ws_${String(i % 12)}`, Math.floor(i / 20)));
    for (let m = 0; m < 40; m++) await spool.spool(events.slice(m * 5, m * 5 + 5), 'RetriesExhausted');
    expect(sqs.depth(queue)).toBe(40);
    const distinct = new Set(events.map(partitionOf)).size;
    expect(distinct).toBeGreaterThan(30);

    const { sink, state } = recordingSink();
    const sleeps: number[] = [];
    const pacer = createReplayPacer({
      partitionLimit: 40,
      livePartitions: 30,
      windowMs: 90_000,
      sleep: (ms) => {
        sleeps.push(ms);
        state.window += 1;
        return Promise.resolve();
      },
    });
    const progress: number[] = [];
    const totals = await replaySpool({
      sqs: sqsClient(),
      queueUrl: sqs.queueUrl(queue),
      sink,
      pacer,
      onProgress: (t) => progress.push(t.messages),
    });

    expect(pacer.budget).toBe(10);
    for (const partitions of state.perWindow.values()) expect(partitions.size).toBeLessThanOrEqual(10);
    expect(totals).toMatchObject({ messages: 40, messagesReplayed: 40, messagesLeft: 0, eventsReplayed: 200 });
    expect(totals.windows).toBeGreaterThanOrEqual(Math.ceil(distinct / 10));
    expect(sleeps).toEqual(Array.from({ length: totals.windows - 1 }, () => 90_000));
    expect(state.delivered.map((e) => e.eventId).sort()).toEqual(events.map((e) => e.eventId).sort());
    expect(sqs.depth(queue)).toBe(0);
    expect(progress.at(-1)).toBe(40);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('drops the events of an erased workspace: not re-sent, its messages deleted all the same', async () => {
    const queue = 'spool-erased';
    const spool = createSqsSpool({ queueUrl: sqs.queueUrl(queue), region: 'us-east-1', client: sqsClient() });
    await spool.spool([event(1, 'ws_gone', 0), event(2, 'ws_kept', 0)], 'x');
    await spool.spool([event(3, 'ws_gone', 1)], 'x');
    const asked: string[][] = [];
    const erased: ErasedCheck = (ids) => {
      asked.push([...ids]);
      return Promise.resolve(new Set([...ids].filter((id) => id === 'ws_gone')));
    };
    const { sink, state } = recordingSink();
    const totals = await replaySpool({ sqs: sqsClient(), queueUrl: sqs.queueUrl(queue), sink, erased });
    expect(state.delivered.map((e) => e.eventId)).toEqual(['evt_2']);
    expect(totals).toMatchObject({ messages: 2, messagesReplayed: 2, eventsReplayed: 1, eventsDropped: 2 });
    expect(sqs.depth(queue)).toBe(0);
    expect(asked.flat()).toContain('ws_kept');

    // The redrive Lambda uses the same function: a message of erased events only is delivered without a send.
    const only = await redriveSpooledMessages(
      [{ id: 'm', body: JSON.stringify({ reason: 'x', spooledAt: '', events: [event(4, 'ws_gone', 2)] }) }],
      sink,
      { erased },
    );
    expect(only).toEqual({ delivered: ['m'], failed: [], eventsReplayed: 0, eventsDropped: 1 });
    expect(state.delivered).toHaveLength(1);
  });
});
