import type { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { busEntrySize, createEventBridgeBus } from '@shared/outbound/event-bus';
import { createSqsDeliveryQueue } from '@shared/outbound/delivery-queue';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import {
  cutBatches,
  EntryTooLarge,
  PUT_EVENTS_LIMITS,
  SEND_MESSAGE_BATCH_LIMITS,
  utf8Bytes,
} from '@shared/util/byte-batches';

/** A link event whose data carries `bytes` of objects (links with large `objects`). */
const bigEvent = (i: number, bytes: number): OutboundEvent => ({
  id: `evt_${String(i)}`,
  type: 'link.updated',
  occurredAt: '2026-11-26T10:00:00.000Z',
  workspaceId: 'ws_1',
  data: { id: `lnk_${String(i)}`, objects: [{ blob: 'é'.repeat(bytes / 2) }] },
});

describe('cutBatches', () => {
  it('cuts by count and by bytes, in order, and refuses an entry too large alone', () => {
    const limits = { api: 'Test', maxEntries: 3, maxBytes: 10 };
    expect(cutBatches([1, 1, 1, 1, 1], limits, (n) => n)).toEqual([
      [1, 1, 1],
      [1, 1],
    ]);
    expect(cutBatches([4, 4, 4, 2, 9], limits, (n) => n)).toEqual([[4, 4], [4, 2], [9]]);
    expect(cutBatches([], limits, (n) => n)).toEqual([]);
    expect(() => cutBatches([1, 11], limits, (n) => n)).toThrow(EntryTooLarge);
    expect(() => cutBatches([11], limits, (n) => n)).toThrow('Test takes entries of at most 10 bytes; this one has 11');
  });
});

describe('EventBridge PutEvents: batches under 256 KB', () => {
  const stubBus = () => {
    const calls: PutEventsCommand['input'][] = [];
    const client = {
      send: (command: PutEventsCommand) => {
        calls.push(command.input);
        return Promise.resolve({ FailedEntryCount: 0, Entries: command.input.Entries?.map(() => ({ EventId: 'x' })) });
      },
    } as unknown as EventBridgeClient;
    return { calls, bus: createEventBridgeBus({ client, busName: 'bus', source: 'stack' }) };
  };

  it('ten events of 60 KB go in calls that each stay under the limit, every event once', async () => {
    const { calls, bus } = stubBus();
    const events = Array.from({ length: 10 }, (_, i) => bigEvent(i, 60_000));
    await bus.put(events);
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      const total = (call.Entries ?? []).reduce((sum, e) => sum + busEntrySize(e), 0);
      expect(total).toBeLessThan(256 * 1024);
    }
    expect(calls.flatMap((c) => c.Entries ?? []).map((e) => (JSON.parse(e.Detail!) as { id: string }).id)).toEqual(
      events.map((e) => e.id),
    );
  });

  it('an event too large for PutEvents alone is refused with the limit named, before any call', async () => {
    const { calls, bus } = stubBus();
    await expect(bus.put([bigEvent(1, 10), bigEvent(2, 300_000)])).rejects.toThrow(
      /EventBridge PutEvents takes entries of at most 262143 bytes/,
    );
    expect(calls).toHaveLength(0);
    expect(PUT_EVENTS_LIMITS.maxEntries).toBe(10);
  });
});

describe('SQS SendMessageBatch: batches within the queue message size', () => {
  it('cuts delivery messages by bytes and sends every message once', async () => {
    const calls: SendMessageBatchCommand['input'][] = [];
    const client = {
      send: (command: SendMessageBatchCommand) => {
        calls.push(command.input);
        return Promise.resolve({ Successful: [], Failed: [] });
      },
    } as unknown as SQSClient;
    const queue = createSqsDeliveryQueue({ client, queueUrl: 'q' });
    const messages = Array.from({ length: 10 }, (_, i) => ({
      endpointId: 'wh_1',
      workspaceId: 'ws_1',
      event: bigEvent(i, 60_000),
    }));
    await queue.send(messages);
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      const total = (call.Entries ?? []).reduce((sum, e) => sum + utf8Bytes(e.MessageBody), 0);
      expect(total).toBeLessThanOrEqual(SEND_MESSAGE_BATCH_LIMITS.maxBytes);
    }
    expect(calls.flatMap((c) => c.Entries ?? [])).toHaveLength(10);
  });
});
