import { log } from '@shared/util/logger';
import { countThrottle, countUndeliveredEvents } from '@shared/util/metrics';
import type { PutRecordBatch } from './firehose-client';
import type { EventRecord } from './event-record';
import type { EventSink } from './event-sink';
import type { EventSpool } from './event-spool';

/** PutRecordBatch limits (Firehose quotas): per call and per record. */
export const firehoseLimits = {
  recordsPerCall: 500,
  bytesPerCall: 4 * 1024 * 1024,
  bytesPerRecord: 1000 * 1024,
} as const;

/** Errors retrying cannot fix: the whole batch is reported at once. */
const PERMANENT_ERRORS = new Set([
  'ResourceNotFoundException',
  'InvalidArgumentException',
  'AccessDeniedException',
  'InvalidKMSResourceException',
  'InvalidSourceException',
  'ValidationException',
]);

/** Firehose answers a throttled record or call with these (per-record ErrorCode or error name). */
const THROTTLED = /ServiceUnavailable|Throttl|LimitExceeded/;

export interface UndeliveredEvents {
  streamName: string;
  reason: string;
  events: EventRecord[];
}

export interface FirehoseSinkOptions {
  /** The PutRecordBatch call (firehose-client.ts when deployed). */
  putRecordBatch: PutRecordBatch;
  streamName: string;
  /** Attempts per record, the first included. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** What happens to events that still fail after the retries (and the spool); default: error log + `UndeliveredEvents` metric. */
  onUndelivered?: (undelivered: UndeliveredEvents) => void;
  /**
   * The durable fallback: events Firehose still rejects after the retries are spooled there
   * (SQS deployed) and re-sent when Firehose recovers. Only if the spool fails too are they
   * reported (logged in full). Records too large for Firehose are never spooled.
   */
  spool?: EventSpool;
}

/** The Firehose sink, plus one delivery pass that hands back what it could not deliver (the redrive uses it). */
export interface FirehoseSink extends EventSink {
  deliver(events: EventRecord[]): Promise<{ undelivered: EventRecord[]; reasons: string[] }>;
}

interface Pending {
  event: EventRecord;
  data: Uint8Array;
  error?: string;
}

/** One record = one JSON line, newline-terminated (the lake is newline-delimited JSON). */
export const encodeEventRecord = (event: EventRecord): Uint8Array => Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');

/** Splits records into PutRecordBatch calls of at most 500 records and 4 MiB, in order. */
export const batchRecords = <T extends { data: Uint8Array }>(records: T[]): T[][] => {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const record of records) {
    if (current.length === firehoseLimits.recordsPerCall || bytes + record.data.length > firehoseLimits.bytesPerCall) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += record.data.length;
  }
  if (current.length) batches.push(current);
  return batches;
};

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
  log('error', 'Events could not be delivered to Firehose', { streamName, reason, count: events.length, events });
  countUndeliveredEvents(streamName, events.length);
};

/**
 * The deployed event sink: Firehose PutRecordBatch. Batches respect the per-call limits; records
 * that fail (FailedPutCount > 0 with a per-record ErrorCode) and whole calls that are throttled
 * or fail transiently are retried with exponential backoff and jitter; whatever still fails
 * after `maxAttempts` (or meets a permanent error) goes to the spool when there is one (the
 * durable fallback, re-sent by the redrive), and is reported only if that fails too or there is
 * none; records too large for Firehose are reported.
 */
export const createFirehoseSink = (options: FirehoseSinkOptions): FirehoseSink => {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 3000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const onUndelivered = options.onUndelivered ?? reportUndelivered;
  /** Failures of the current delivery pass, by reason (reported or spooled after it). */
  type Failures = Array<{ reason: string; records: Pending[] }>;
  const report = (failures: Failures, reason: string, records: Pending[]) => {
    if (records.length) failures.push({ reason, records });
  };

  /** Sends one batch; returns the records worth another attempt. */
  const putBatch = async (batch: Pending[], failures: Failures): Promise<Pending[]> => {
    try {
      const out = await options.putRecordBatch({ DeliveryStreamName: options.streamName, Records: batch.map((r) => ({ Data: r.data })) });
      if (!out.FailedPutCount) return [];
      const responses = out.RequestResponses ?? [];
      return batch.flatMap((record, i) => {
        const response = responses[i];
        // No answer for a record counts as a failure: it is retried rather than assumed delivered.
        return !response || response.ErrorCode ? [{ ...record, error: response?.ErrorCode ?? 'MissingResponse' }] : [];
      });
    } catch (error) {
      const name = (error as Error).name ?? 'Error';
      if (PERMANENT_ERRORS.has(name)) {
        report(failures, name, batch);
        return [];
      }
      return batch.map((record) => ({ ...record, error: name }));
    }
  };

  /** One delivery pass with retries; what still failed, by reason (records too large apart). */
  const deliverPass = async (events: EventRecord[]): Promise<{ failures: Failures; tooLarge: Pending[] }> => {
    const failures: Failures = [];
    const encoded = events.map((event) => ({ event, data: encodeEventRecord(event) }));
    const tooLarge = encoded.filter((r) => r.data.length > firehoseLimits.bytesPerRecord);
    let pending: Pending[] = encoded.filter((r) => r.data.length <= firehoseLimits.bytesPerRecord);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const failed = (await Promise.all(batchRecords(pending).map((batch) => putBatch(batch, failures)))).flat();
      if (failed.length === 0) break;
      if (failed.some((r) => r.error && THROTTLED.test(r.error))) countThrottle('Firehose');
      if (attempt >= maxAttempts) {
        const reasons = [...new Set(failed.map((r) => r.error))].join(',');
        report(failures, `RetriesExhausted:${reasons}`, failed);
        break;
      }
      log('warn', 'Firehose: retrying failed records', { streamName: options.streamName, attempt, failed: failed.length });
      await sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs, random));
      pending = failed;
    }
    return { failures, tooLarge };
  };

  return {
    async deliver(events: EventRecord[]) {
      const { failures, tooLarge } = await deliverPass(events);
      if (tooLarge.length) onUndelivered({ streamName: options.streamName, reason: 'RecordTooLarge', events: tooLarge.map((r) => r.event) });
      return { undelivered: failures.flatMap((f) => f.records.map((r) => r.event)), reasons: failures.map((f) => f.reason) };
    },
    async send(events: EventRecord[]) {
      const { failures, tooLarge } = await deliverPass(events);
      if (tooLarge.length) onUndelivered({ streamName: options.streamName, reason: 'RecordTooLarge', events: tooLarge.map((r) => r.event) });
      for (const { reason, records } of failures) {
        const failed = records.map((r) => r.event);
        if (options.spool) {
          try {
            await options.spool.spool(failed, reason);
            log('warn', 'Firehose: undelivered events spooled for redrive', { streamName: options.streamName, reason, count: failed.length });
            continue;
          } catch (error) {
            onUndelivered({ streamName: options.streamName, reason: `${reason};SpoolFailed:${(error as Error).name}`, events: failed });
            continue;
          }
        }
        onUndelivered({ streamName: options.streamName, reason, events: failed });
      }
    },
  };
};
