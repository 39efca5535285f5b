import { setTimeout as delay } from 'node:timers/promises';
import { cutBatches, type BatchLimits } from './byte-batches';

/**
 * The one "send in batches, resend what failed" of the service, for every batch API (DynamoDB
 * BatchWriteItem and BatchGetItem, SQS SendMessageBatch, EventBridge PutEvents):
 * entries cut into calls by the API's count and byte limits (`cutBatches`), in order; after each
 * call only the entries it answered as not taken (unprocessed, failed) are sent again, after
 * `delayMs(resend)`, until none are left; a batch still not through after `maxAttempts` calls
 * throws `exhausted(left)`.
 */
export interface BatchSendOptions<T> {
  /** The API's limits, and an entry's size as it counts it against a call (`cutBatches`). */
  limits: BatchLimits;
  bytes: (entry: T) => number;
  /** An entry's size against `limits.maxEntryBytes` when the API counts it otherwise (DynamoDB's stored item size). */
  entryBytes?: (entry: T) => number;
  /** One call; answers the entries it did not take (they are sent again). */
  send: (batch: T[]) => Promise<T[]>;
  /** Calls per batch, the first included (`Infinity`: until every entry is through). */
  maxAttempts: number;
  /** The pause before the nth resend of a batch (1-based). */
  delayMs: (resend: number) => number;
  sleep?: (ms: number) => Promise<void>;
  /** What is thrown when entries are still left after `maxAttempts` calls. */
  exhausted: (left: T[], attempts: number) => Error;
}

const defaultSleep = (ms: number) => delay(ms);

/** Sends every entry as the options say; answers how many calls were made and how many were resends. */
export const sendInBatches = async <T>(
  entries: T[],
  options: BatchSendOptions<T>,
): Promise<{ calls: number; retries: number }> => {
  const sleep = options.sleep ?? defaultSleep;
  let calls = 0;
  let retries = 0;
  for (const batch of cutBatches(entries, options.limits, options.bytes, options.entryBytes)) {
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > options.maxAttempts) throw options.exhausted(pending, options.maxAttempts);
      if (attempt > 1) {
        retries++;
        await sleep(options.delayMs(attempt - 1));
      }
      pending = await options.send(pending);
      calls++;
    }
  }
  return { calls, retries };
};
