import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { KinesisStreamRecord } from 'aws-lambda';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import { CounterUpdatesFailed, recordsOfLinks, type CounterStreamRecord } from '@shared/clicks/link-counters';
import { log } from '@shared/util/logger';
import { retry } from '@shared/util/retry';
import { CONSUMER_MAX_RECORD_AGE_HOURS } from './consumer-retention';
import type { EventRecord } from './event-record';
import type { EventSink, SendOptions } from './event-sink-interface';
import { keptKinesisFailure } from './kept-failure-record';
import { createLocalLakeSink } from './local-lake-sink';
import { outsideInvocations } from '@shared/local/invocation-event-loop';
import { routeContext } from '@shared/local/route-context';
import { clickCountersConsumer } from '@shared/routes/consumer-specs';
import { LAKE_ONLY_PARTITION_PREFIX } from './stream-sink';

/** Records the local consumer takes per batch (the deployed event source mapping's batch size). */
/** The longest pause of the local counter consumer between retries of a throttled batch. */
export const LOCAL_COUNTER_MAX_RETRY_MS = 5_000;

export const LOCAL_COUNTER_BATCH = 1_000;

/** Records the local stream keeps for re-delivery (the deployed stream keeps 24 hours). */
export const LOCAL_RETAINED_RECORDS = 20_000;

/** The local stream's folder of kept failures (the deployed failures bucket): next to the lake's. */
export const localStreamFailuresDir = (lakeDir: string): string => `${lakeDir.replace(/[\\/]+$/, '')}-stream-failures`;

export interface LocalEventStreamOptions {
  /** Where failed batches are kept (default: `localStreamFailuresDir(lakeDir)`). */
  failuresDir?: string;
  /** The stream's clock (ms): a record's age is measured on it (tests move it). */
  clock?: () => number;
  /** The consumer (default: `applyClickCounters`); tests make it fail. */
  apply?: (records: CounterStreamRecord[]) => Promise<unknown>;
}

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
 * costs a few counter updates, as deployed), and a batch that fails is retried, in order, until
 * it goes through or its oldest record is older than the consumer's maximum record age (20 h, as
 * the event source mapping does); then the batch is kept whole in the failures folder, in the
 * document Lambda writes to the deployed S3 on-failure destination, for `admin
 * replay-stream-failures` (kept-failures.ts).
 *
 * As deployed, `send` resolves once the records are in the stream (the lake's files written, the
 * records queued for the consumer); the counters follow a moment later (`drained()` waits for
 * them: the test stack's `idle()` does). A slow or failing consumer never slows a send.
 */
export const createLocalEventStream = (lakeDir: string, options: LocalEventStreamOptions = {}): LocalEventStream => {
  const lake = createLocalLakeSink(lakeDir);
  const failures = createLocalLakeStore(options.failuresDir ?? localStreamFailuresDir(lakeDir));
  const clock = options.clock ?? (() => Date.now());
  const apply = options.apply ?? countClickBatch;
  const shardId = `shardId-local-${String(process.pid)}-${randomBytes(4).toString('hex')}`;
  const streamArn = `arn:aws:kinesis:local:000000000000:stream/local-events`;
  let sequence = 0n;
  const queue: CounterStreamRecord[] = [];
  /** When each record reached the stream (its age, as the event source mapping measures it). */
  const arrivals = new WeakMap<CounterStreamRecord, number>();
  const retained: CounterStreamRecord[] = [];
  /** A record as the event source mapping hands it to Lambda (and keeps it in a failure). */
  const kinesisRecordOf = (record: CounterStreamRecord): KinesisStreamRecord => ({
    eventSource: 'aws:kinesis',
    eventID: `${record.shardId}:${record.sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    eventVersion: '1.0',
    invokeIdentityArn: 'arn:aws:iam::000000000000:role/local',
    awsRegion: 'local',
    eventSourceARN: streamArn,
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: record.lakeOnly ? `${LAKE_ONLY_PARTITION_PREFIX}local` : 'local',
      sequenceNumber: record.sequenceNumber,
      data: Buffer.from(record.data).toString('base64'),
      approximateArrivalTimestamp: (arrivals.get(record) ?? clock()) / 1000,
    },
  });
  const keep = async (batch: CounterStreamRecord[]) => {
    const now = new Date(clock());
    const doc = keptKinesisFailure(batch.map(kinesisRecordOf), streamArn, 'RecordAgeExceeded', now);
    await failures.putText(
      `aws/lambda/local/${shardId}/${now.toISOString().slice(0, 10).replaceAll('-', '/')}/${now.toISOString()}-${randomUUID()}`,
      JSON.stringify(doc),
    );
  };
  let pumping: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];

  /** The backoff of the consumer's retries: 50 ms doubling up to LOCAL_COUNTER_MAX_RETRY_MS. */
  const retryDelayMs = (attempt: number) => Math.min(50 * 2 ** (attempt - 1), LOCAL_COUNTER_MAX_RETRY_MS);

  const pump = async () => {
    while (queue.length > 0) {
      // Each attempt takes the queue's head again: records that arrived meanwhile join the batch.
      let batch = queue.slice(0, LOCAL_COUNTER_BATCH);
      const first = batch[0];
      const oldest = (first && arrivals.get(first)) ?? clock();
      try {
        // As the event source mapping does: a failing batch is retried (the one retry helper,
        // backing off) until its oldest record is past the consumer's maximum record age. As its
        // own function: the local grant guard holds it to its row's grants (LINK# only).
        await retry(
          () => {
            batch = queue.slice(0, LOCAL_COUNTER_BATCH);
            return routeContext.run(clickCountersConsumer, () => apply(batch));
          },
          {
            attempts: Number.POSITIVE_INFINITY,
            retryOn: () => clock() - oldest <= CONSUMER_MAX_RECORD_AGE_HOURS * 3600_000,
            pause: (attempt, error) => {
              const retryInMs = retryDelayMs(attempt);
              log('warn', 'local event stream: click counters not applied; retrying the batch', {
                records: batch.length,
                error: String(error),
                retryInMs,
              });
              return delay(retryInMs, undefined, { ref: false });
            },
          },
        );
      } catch (error) {
        // Given up, as the event source mapping does: kept whole, then the next batch.
        // The consumer keeps the links it could not count; anything else fails the batch whole.
        await keep(error instanceof CounterUpdatesFailed ? recordsOfLinks(batch, error.failed) : batch);
        log('warn', 'local event stream: click counters gave up on a batch; kept for replay', {
          records: batch.length,
          error: String(error),
        });
      }
      queue.splice(0, batch.length);
    }
    pumping = undefined;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  // The consumer is a function of its own when deployed: a send from an edge invocation starts it
  // outside that invocation's event loop (the local server waits for an invocation's loop).
  const startPump = () => outsideInvocations(pump);

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
        arrivals.set(record, clock());
        queue.push(record);
      }
      pumping ??= startPump();
    },
    drained: () => (pumping ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
    async redeliverRetained() {
      queue.push(...retained);
      pumping ??= startPump();
      await new Promise<void>((resolve) => idleWaiters.push(resolve));
      return retained.length;
    },
  };
};

/** Waits until a local event stream's consumer has applied everything sent (any other sink: at once). */
export const drainEventStream = async (sink: EventSink): Promise<void> => {
  await (sink as Partial<LocalEventStream>).drained?.();
};
