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

/**
 * Kinesis Data Streams PutRecords: at most 500 records and 5 MiB per call, each record at most
 * 1 MiB, a record's size being its data blob plus its partition key:
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html.
 */
export const PUT_RECORDS_LIMITS: BatchLimits = {
  api: 'Kinesis PutRecords',
  maxEntries: 500,
  maxBytes: 5 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024,
};

/**
 * DynamoDB BatchWriteItem: at most 25 put or delete requests and 16 MB sent per call (in
 * DynamoDB's JSON on the wire), each item at most 400 KB once stored (its size as DynamoDB counts
 * it, smaller than its JSON): https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
 * and https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html.
 * The call's bytes are counted against 16,000,000, the lower reading of 16 MB, which leaves room
 * for the request's envelope (table name, brackets).
 */
export const BATCH_WRITE_ITEM_LIMITS: BatchLimits = {
  api: 'DynamoDB BatchWriteItem',
  maxEntries: 25,
  maxBytes: 16_000_000,
  maxEntryBytes: 400 * 1024,
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
 * `EntryTooLarge` (before any call) if one item alone is over the entry limit. `entrySizeOf`
 * measures an entry against `maxEntryBytes` when the API counts it otherwise than against the
 * call's limit (DynamoDB: an item's stored size, the call's bytes on the wire).
 */
export const cutBatches = <T>(
  items: T[],
  limits: BatchLimits,
  sizeOf: (item: T) => number,
  entrySizeOf?: (item: T) => number,
): T[][] => {
  const entryLimit = limits.maxEntryBytes ?? limits.maxBytes;
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    const entrySize = entrySizeOf ? entrySizeOf(item) : size;
    if (entrySize > entryLimit) throw new EntryTooLarge(limits.api, entrySize, entryLimit);
    if (size > limits.maxBytes) throw new EntryTooLarge(limits.api, size, limits.maxBytes);
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
