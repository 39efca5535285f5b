import { log } from '@shared/util/logger';
import { countThrottle, countUndeliveredEvents } from '@shared/util/metrics';
import { randomBytes } from 'node:crypto';
import { cutBatches, PUT_RECORDS_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import { setTimeout as delay } from 'node:timers/promises';
import { retry } from '@shared/util/retry';
import type { PutRecords } from './kinesis-client';
import type { EventRecord } from './event-record';
import type { EventSink, SendOptions } from './event-sink-interface';
import type { EventSpool } from './event-spool';

/**
 * PutRecords limits (`PUT_RECORDS_LIMITS`, shared/util/byte-batches.ts: 500 records and 5 MiB per
 * call, 1 MiB per record, data plus partition key), and per record the lower of Kinesis's 1 MiB
 * and Firehose's 1,000 KiB: every record also goes on to Firehose (the lake), which would reject
 * a larger one.
 */
export const streamLimits = {
  recordsPerCall: PUT_RECORDS_LIMITS.maxEntries,
  bytesPerCall: PUT_RECORDS_LIMITS.maxBytes,
  bytesPerRecord: 1000 * 1024,
} as const;

/** Errors retrying cannot fix: the whole batch is reported at once. */
const PERMANENT_ERRORS = new Set([
  'ResourceNotFoundException',
  'InvalidArgumentException',
  'AccessDeniedException',
  'KMSDisabledException',
  'KMSInvalidStateException',
  'KMSAccessDeniedException',
  'KMSNotFoundException',
  'KMSOptInRequired',
  'ValidationException',
]);

/** Kinesis answers a throttled record or call with these (per-record ErrorCode or error name). */
const THROTTLED = /ProvisionedThroughputExceeded|Throttl|LimitExceeded/;

/**
 * Each record's partition key: random, so the records of one hot link spread over every shard
 * (a shard takes 1,000 records/s; one link's clicks on one shard would throttle at that rate).
 * The counter consumer keeps a checkpoint per shard (apply-click-counters.ts), so it does not
 * need one link's records on one shard.
 */
export const randomPartitionKey = (): string => randomBytes(8).toString('hex');

/** Partition keys of lake-only records (SendOptions.lakeOnly): the counter consumer skips them. */
export const LAKE_ONLY_PARTITION_PREFIX = 'lake-only-';

export interface UndeliveredEvents {
  streamName: string;
  reason: string;
  events: EventRecord[];
}

export interface StreamSinkOptions {
  /** The PutRecords call (kinesis-client.ts when deployed). */
  putRecords: PutRecords;
  streamName: string;
  /** Attempts per record, the first included. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The pause between attempts; an aborted `signal` ends it early (it may reject). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** What happens to events that still fail after the retries (and the spool); default: error log + `UndeliveredEvents` metric. */
  onUndelivered?: (undelivered: UndeliveredEvents) => void;
  /**
   * The durable fallback: events the stream still rejects after the retries are spooled there
   * (SQS deployed) and re-sent when the stream recovers. Only if the spool fails too are they
   * reported (logged in full). Records too large for the stream are never spooled.
   */
  spool?: EventSpool;
}

/** The stream sink, plus one delivery pass that hands back what it could not deliver (the redrive uses it). */
export interface StreamSink extends EventSink {
  deliver(events: EventRecord[]): Promise<{ undelivered: EventRecord[]; reasons: string[] }>;
}

interface Pending {
  event: EventRecord;
  data: Uint8Array;
  partitionKey: string;
  error?: string;
}

/** The records a pass could not deliver, thrown so p-retry sees a failed attempt. */
class FailedRecords extends Error {
  constructor(readonly records: Pending[]) {
    super(`${String(records.length)} records failed`);
    this.name = 'FailedRecords';
  }
}

/** One record = one JSON line, newline-terminated (the lake is newline-delimited JSON). */
export const encodeEventRecord = (event: EventRecord): Uint8Array => Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');

/** A record's size as PutRecords counts it: its data plus its partition key (UTF-8). */
export const putRecordBytes = (record: { data: Uint8Array; partitionKey?: string }): number =>
  record.data.length + utf8Bytes(record.partitionKey);

/**
 * Splits records into PutRecords calls of at most 500 records and 5 MiB, in order, with the one
 * batch helper (byte-batches.ts). The sink keeps records over 1,000 KiB out before (RecordTooLarge).
 */
export const batchRecords = <T extends { data: Uint8Array; partitionKey?: string }>(records: T[]): T[][] =>
  cutBatches(records, PUT_RECORDS_LIMITS, putRecordBytes);

/** Exponential backoff with equal jitter: half the capped exponential delay, plus a random half. */
export const backoffDelay = (attempt: number, baseMs: number, maxMs: number, random: () => number): number => {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
};

/**
 * Never silent: the events go to the error log in full (event lines carry no secrets and no
 * raw IPs, so they can be replayed from there) and the `UndeliveredEvents` metric (namespace
 * `LinkService`, dimensions `service` and `StreamName`; Powertools Metrics) counts them.
 */
export const reportUndelivered = ({ streamName, reason, events }: UndeliveredEvents): void => {
  log('error', 'Events could not be delivered to the event stream', {
    streamName,
    reason,
    count: events.length,
    events,
  });
  countUndeliveredEvents(streamName, events.length);
};

/**
 * The deployed event sink: Kinesis Data Streams PutRecords (the stream feeds Firehose, the lake,
 * and the click counter consumer). Batches respect the per-call limits; records
 * that fail (FailedRecordCount > 0 with a per-record ErrorCode) and whole calls that are throttled
 * or fail transiently are retried with exponential backoff and jitter; whatever still fails
 * after `maxAttempts` (or meets a permanent error) goes to the spool when there is one (the
 * durable fallback, re-sent by the redrive), and is reported only if that fails too or there is
 * none; records too large for the stream are reported.
 */
export const createStreamSink = (options: StreamSinkOptions): StreamSink => {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 3000;
  // Aborted, the pause's timer is cleared at once: no timer of the sink outlives its caller's budget.
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }));
  const random = options.random ?? Math.random;
  const onUndelivered = options.onUndelivered ?? reportUndelivered;
  /** Failures of the current delivery pass, by reason (reported or spooled after it). */
  type Failures = Array<{ reason: string; records: Pending[] }>;
  const report = (failures: Failures, reason: string, records: Pending[]) => {
    if (records.length) failures.push({ reason, records });
  };

  /** Sends one batch; returns the records worth another attempt. Aborted (`signal`), it rejects. */
  const putBatch = async (batch: Pending[], failures: Failures, signal?: AbortSignal): Promise<Pending[]> => {
    try {
      const out = await options.putRecords(
        {
          StreamName: options.streamName,
          Records: batch.map((r) => ({ Data: r.data, PartitionKey: r.partitionKey })),
        },
        { abortSignal: signal },
      );
      if (!out.FailedRecordCount) return [];
      const responses = out.Records ?? [];
      return batch.flatMap((record, i) => {
        const response = responses[i];
        // No answer for a record counts as a failure: it is retried rather than assumed delivered.
        return !response || response.ErrorCode ? [{ ...record, error: response?.ErrorCode ?? 'MissingResponse' }] : [];
      });
    } catch (error) {
      signal?.throwIfAborted();
      const name = (error as Partial<Error>).name ?? 'Error';
      if (PERMANENT_ERRORS.has(name)) {
        report(failures, name, batch);
        return [];
      }
      return batch.map((record) => ({ ...record, error: name }));
    }
  };

  /**
   * One delivery pass with retries; what still failed, by reason (records too large apart).
   * Aborted (`sendOptions.signal`), it stops where it is and rejects with the signal's reason.
   */
  const deliverPass = async (
    events: EventRecord[],
    sendOptions?: SendOptions,
  ): Promise<{ failures: Failures; tooLarge: Pending[] }> => {
    const failures: Failures = [];
    const signal = sendOptions?.signal;
    const prefix = sendOptions?.lakeOnly ? LAKE_ONLY_PARTITION_PREFIX : '';
    const encoded = events.map((event) => ({
      event,
      data: encodeEventRecord(event),
      partitionKey: `${prefix}${randomPartitionKey()}`,
    }));
    const tooLarge = encoded.filter((r) => putRecordBytes(r) > streamLimits.bytesPerRecord);
    let pending: Pending[] = encoded.filter((r) => putRecordBytes(r) <= streamLimits.bytesPerRecord);
    if (pending.length === 0) return { failures, tooLarge };
    // The one retry helper (p-retry, shared/util/retry.ts) runs the passes, each sending what the
    // last left, re-cut into calls; the wait is the equal-jitter backoff, ended by `signal`.
    try {
      await retry(
        async () => {
          const failed = (
            await Promise.all(batchRecords(pending).map((batch) => putBatch(batch, failures, signal)))
          ).flat();
          signal?.throwIfAborted();
          if (failed.length === 0) return;
          if (failed.some((r) => r.error && THROTTLED.test(r.error))) countThrottle('Kinesis');
          pending = failed;
          throw new FailedRecords(failed);
        },
        {
          attempts: maxAttempts,
          retryOn: (error) => error instanceof FailedRecords,
          pause: async (attempt, error) => {
            log('warn', 'Event stream: retrying failed records', {
              streamName: options.streamName,
              attempt,
              failed: error instanceof FailedRecords ? error.records.length : 0,
            });
            await sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs, random), signal);
            signal?.throwIfAborted();
          },
        },
      );
    } catch (error) {
      if (!(error instanceof FailedRecords)) throw error;
      const reasons = [...new Set(error.records.map((r) => r.error))].join(',');
      report(failures, `RetriesExhausted:${reasons}`, error.records);
    }
    return { failures, tooLarge };
  };

  return {
    async deliver(events: EventRecord[]) {
      const { failures, tooLarge } = await deliverPass(events);
      if (tooLarge.length)
        onUndelivered({
          streamName: options.streamName,
          reason: 'RecordTooLarge',
          events: tooLarge.map((r) => r.event),
        });
      return {
        undelivered: failures.flatMap((f) => f.records.map((r) => r.event)),
        reasons: failures.map((f) => f.reason),
      };
    },
    /**
     * Aborted (`sendOptions.signal`, the caller's budget), it stops: the call in flight is
     * cancelled, nothing is retried, spooled or reported, and it rejects with the signal's reason;
     * the caller keeps the events (the edge logs them once for replay). The abort does not undo a
     * call Kinesis already accepted.
     */
    async send(events: EventRecord[], sendOptions?: SendOptions) {
      const signal = sendOptions?.signal;
      const { failures, tooLarge } = await deliverPass(events, sendOptions);
      if (tooLarge.length)
        onUndelivered({
          streamName: options.streamName,
          reason: 'RecordTooLarge',
          events: tooLarge.map((r) => r.event),
        });
      for (const { reason, records } of failures) {
        signal?.throwIfAborted();
        const failed = records.map((r) => r.event);
        // A lake-only replay is not spooled: the redrive would send it as ordinary events, counted again.
        if (options.spool && !sendOptions?.lakeOnly) {
          try {
            await options.spool.spool(failed, reason, signal);
            log('warn', 'Event stream: undelivered events spooled for redrive', {
              streamName: options.streamName,
              reason,
              count: failed.length,
            });
            continue;
          } catch (error) {
            signal?.throwIfAborted();
            onUndelivered({
              streamName: options.streamName,
              reason: `${reason};SpoolFailed:${(error as Error).name}`,
              events: failed,
            });
            continue;
          }
        }
        onUndelivered({ streamName: options.streamName, reason, events: failed });
      }
    },
  };
};
