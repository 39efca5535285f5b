import { describe, expect, it } from 'vitest';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { parseSpoolMessage, spoolMessages, type EventSpool } from '@shared/events/event-spool';
import { createStreamSink, type UndeliveredEvents } from '@shared/events/stream-sink';
import { redriveSpooledMessages } from '@shared/events/redrive-events';

const event = (i: number, extra: Partial<EventRecord> = {}): EventRecord => ({
  ...blankEvent({
    eventId: `e${i}`,
    timestamp: '2026-11-23T05:00:00.000Z',
    eventType: 'click',
    workspaceId: 'ws',
    trafficType: 'human',
  }),
  ...extra,
});

const failingPut = (state: { down: boolean }) => (input: { Records: unknown[] }) =>
  state.down
    ? Promise.reject(Object.assign(new Error('down'), { name: 'ProvisionedThroughputExceededException' }))
    : Promise.resolve({
        FailedRecordCount: 0,
        Records: input.Records.map((_, i) => ({ SequenceNumber: String(i), ShardId: 'shardId-000000000000' })),
      });

describe('the sink with a spool', () => {
  it('spools what still fails after the retries instead of only logging it; reports only when the spool fails too', async () => {
    const spooled: Array<{ events: EventRecord[]; reason: string }> = [];
    const reported: UndeliveredEvents[] = [];
    const spool: EventSpool = {
      spool: (events, reason) => {
        spooled.push({ events, reason });
        return Promise.resolve();
      },
    };
    const state = { down: true };
    const sink = createStreamSink({
      putRecords: failingPut(state),
      streamName: 's',
      maxAttempts: 2,
      sleep: async () => {},
      spool,
      onUndelivered: (u) => void reported.push(u),
    });
    await sink.send([event(1), event(2)]);
    expect(spooled).toEqual([
      { events: [event(1), event(2)], reason: 'RetriesExhausted:ProvisionedThroughputExceededException' },
    ]);
    expect(reported).toEqual([]);

    const broken = createStreamSink({
      putRecords: failingPut(state),
      streamName: 's',
      maxAttempts: 1,
      sleep: async () => {},
      spool: {
        spool: () => Promise.reject(Object.assign(new Error('no'), { name: 'QueueDoesNotExist' })),
      },
      onUndelivered: (u) => void reported.push(u),
    });
    await broken.send([event(3)]);
    expect(reported).toEqual([
      {
        streamName: 's',
        reason: 'RetriesExhausted:ProvisionedThroughputExceededException;SpoolFailed:QueueDoesNotExist',
        events: [event(3)],
      },
    ]);
  });

  it('never spools a record too large for the stream (it can never be delivered)', async () => {
    const spooled: EventRecord[] = [];
    const reported: UndeliveredEvents[] = [];
    const sink = createStreamSink({
      putRecords: failingPut({ down: false }),
      streamName: 's',
      spool: {
        spool: (e) => {
          spooled.push(...e);
          return Promise.resolve();
        },
      },
      onUndelivered: (u) => void reported.push(u),
    });
    await sink.send([event(1, { linkKey: 'x'.repeat(1024 * 1024) })]);
    expect(spooled).toEqual([]);
    expect(reported.map((r) => r.reason)).toEqual(['RecordTooLarge']);
  });
});

describe('spool messages and the redrive', () => {
  it('splits events into messages under the SQS size limit, in order, and reads them back', () => {
    const events = Array.from({ length: 400 }, (_, i) => event(i, { linkKey: 'r'.repeat(1000) }));
    const bodies = spoolMessages(events, 'why');
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThan(256 * 1024);
    expect(bodies.flatMap((b) => parseSpoolMessage(b).events)).toEqual(events);
  });

  it('redrives message by message: delivered ones to delete, failing and unreadable ones left', async () => {
    const state = { down: true };
    const sink = createStreamSink({
      putRecords: failingPut(state),
      streamName: 's',
      maxAttempts: 1,
      sleep: async () => {},
    });
    const messages = [
      { id: 'm1', body: spoolMessages([event(1), event(2)], 'x')[0]! },
      { id: 'm2', body: 'not json' },
    ];
    expect(await redriveSpooledMessages(messages, sink)).toEqual({
      delivered: [],
      failed: ['m1', 'm2'],
      eventsReplayed: 0,
      eventsDropped: 0,
    });
    state.down = false;
    expect(await redriveSpooledMessages(messages, sink)).toEqual({
      delivered: ['m1'],
      failed: ['m2'],
      eventsReplayed: 2,
      eventsDropped: 0,
    });
  });
});
