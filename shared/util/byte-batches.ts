/**
 * Cuts the entries of a batch API into calls that fit both its count and its byte limits, so a
 * batch of large entries is sent in more calls instead of failing whole.
 */

export interface BatchLimits {
  /** The API, for error messages. */
  api: string;
  maxEntries: number;
  /** The most bytes of entries one call may carry (as the API counts them: `sizeOf`). */
  maxBytes: number;
  /** The most bytes one entry may have (default: `maxBytes`). */
  maxEntryBytes?: number;
}

/**
 * EventBridge PutEvents: at most 10 entries, and their total size below 256 KB, an entry's size
 * being the UTF-8 bytes of its Source, DetailType, Detail and Resources plus 14 for its Time:
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html.
 */
export const PUT_EVENTS_LIMITS: BatchLimits = {
  api: 'EventBridge PutEvents',
  maxEntries: 10,
  maxBytes: 256 * 1024 - 1,
};

/**
 * SQS SendMessageBatch: at most 10 messages, and the batch's total size no more than the queue's
 * maximum message size: 256 KiB unless the queue is configured higher (up to 1 MiB,
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html);
 * the stack leaves its queues at the conservative 256 KiB this counts with.
 */
export const SEND_MESSAGE_BATCH_LIMITS: BatchLimits = {
  api: 'SQS SendMessageBatch',
  maxEntries: 10,
  maxBytes: 256 * 1024,
};

/** One entry is larger than its API takes: refused where it is written, never a failed batch. */
export class EntryTooLarge extends Error {
  constructor(
    readonly api: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`${api} takes entries of at most ${String(limit)} bytes; this one has ${String(bytes)}`);
    this.name = 'EntryTooLarge';
  }
}

/** UTF-8 bytes of a string. */
export const utf8Bytes = (text: string | undefined): number => (text === undefined ? 0 : Buffer.byteLength(text));

/**
 * Cuts `items` into batches of at most `maxEntries` and `maxBytes` (in order). Throws
 * `EntryTooLarge` (before any call) if one item alone is over the entry limit.
 */
export const cutBatches = <T>(items: T[], limits: BatchLimits, sizeOf: (item: T) => number): T[][] => {
  const entryLimit = Math.min(limits.maxEntryBytes ?? limits.maxBytes, limits.maxBytes);
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (size > entryLimit) throw new EntryTooLarge(limits.api, size, entryLimit);
    if (current.length > 0 && (current.length >= limits.maxEntries || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};
