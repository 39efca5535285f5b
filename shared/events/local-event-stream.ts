import { randomBytes } from 'node:crypto';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import type { CounterStreamRecord } from '@shared/clicks/link-counters';
import { log } from '@shared/util/logger';
import type { EventRecord } from './event-record';
import type { EventSink, SendOptions } from './event-sink';
import { createLocalLakeSink } from './local-lake-sink';

/** Records the local consumer takes per batch (the deployed event source mapping's batch size). */
export const LOCAL_COUNTER_BATCH = 1_000;

/** Records the local stream keeps for re-delivery (the deployed stream keeps 24 hours). */
export const LOCAL_RETAINED_RECORDS = 20_000;

export interface LocalEventStream extends EventSink {
  /** Resolves once every record sent so far has been applied by the counter consumer. */
  drained(): Promise<void>;
  /**
   * Delivers the retained records to the consumer again, as an event source mapping moved back
   * to the trim horizon does (an operator's replay): already counted clicks must not count twice.
   */
  redeliverRetained(): Promise<number>;
}

/**
 * Local stand-in for the deployed event stream (Kinesis Data Streams) and its two readers:
 * Firehose, which writes the lake (here: the local lake's files, local-lake-sink.ts), and the
 * click counter consumer (the same `countClickBatch` the deployed Lambda runs). One shard per
 * process, with increasing sequence numbers; the consumer takes the records in order, in
 * batches of whatever accumulated while the previous batch was applied (so a burst on one link
 * costs a few counter updates, as deployed), and a batch that fails is retried, in order,
 * until it goes through (as the event source mapping does).
 *
 * As deployed, `send` resolves once the records are in the stream (the lake's files written, the
 * records queued for the consumer); the counters follow a moment later (`drained()` waits for
 * them: the test stack's `idle()` does). A slow or failing consumer never slows a send.
 */
export const createLocalEventStream = (lakeDir: string): LocalEventStream => {
  const lake = createLocalLakeSink(lakeDir);
  const shardId = `shardId-local-${process.pid}-${randomBytes(4).toString('hex')}`;
  let sequence = 0n;
  const queue: CounterStreamRecord[] = [];
  const retained: CounterStreamRecord[] = [];
  let pumping: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];

  const pump = async () => {
    let retryMs = 50;
    while (queue.length > 0) {
      const batch = queue.slice(0, LOCAL_COUNTER_BATCH);
      try {
        await countClickBatch(batch);
        queue.splice(0, batch.length);
        retryMs = 50;
      } catch (error) {
        log('warn', 'local event stream: click counters not applied; retrying the batch', {
          records: batch.length,
          error: String(error),
          retryInMs: retryMs,
        });
        await new Promise<void>((resolve) => setTimeout(resolve, retryMs).unref());
        retryMs = Math.min(retryMs * 2, 5_000);
      }
    }
    pumping = undefined;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  return {
    async send(events: EventRecord[], options?: SendOptions) {
      if (events.length === 0) return;
      await lake.send(events);
      for (const event of events) {
        sequence += 1n;
        const record = {
          shardId,
          sequenceNumber: String(sequence),
          data: JSON.stringify(event),
          lakeOnly: options?.lakeOnly === true,
        };
        retained.push(record);
        if (retained.length > LOCAL_RETAINED_RECORDS) retained.shift();
        queue.push(record);
      }
      pumping ??= pump();
    },
    drained: () => (pumping ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
    async redeliverRetained() {
      queue.push(...retained);
      pumping ??= pump();
      await new Promise<void>((resolve) => idleWaiters.push(resolve));
      return retained.length;
    },
  };
};

/** Waits until a local event stream's consumer has applied everything sent (any other sink: at once). */
export const drainEventStream = async (sink: EventSink): Promise<void> => {
  await (sink as Partial<LocalEventStream>).drained?.();
};
