/**
 * Every BatchWriteItem of the service: requests cut into calls by count and bytes
 * (`BATCH_WRITE_ITEM_LIMITS`, shared/util/byte-batches.ts: 25 requests and 16 MB per call, 400 KB
 * per item), through the official lib-dynamodb client; only the requests a call returns as
 * unprocessed (throttling, partition limits) are sent again, after an exponential backoff, until
 * none are left or `maxAttempts` is reached (the service's one batch-and-resend helper,
 * shared/util/batch-send.ts).
 */
import { BatchWriteCommand, type BatchWriteCommandInput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { sendInBatches } from '@shared/util/batch-send';
import { BATCH_WRITE_ITEM_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import { getDocumentClient, tableName } from './dynamo-client';
import { itemSize } from './item-size';

/** One put or delete request of a BatchWriteItem call (document form). */
export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const marshalled = (request: WriteRequest) => {
  const item = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
  return marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true });
};

/** What a request adds to the call's body: its DynamoDB JSON, with the put/delete wrapper and a comma. */
export const writeRequestBytes = (request: WriteRequest): number =>
  utf8Bytes(
    JSON.stringify(
      request.PutRequest
        ? { PutRequest: { Item: marshalled(request) } }
        : { DeleteRequest: { Key: marshalled(request) } },
      (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value),
    ),
  ) + 1;

/** The stored size of the item a request writes (against the 400 KB item limit). */
export const writeRequestItemBytes = (request: WriteRequest): number => itemSize(marshalled(request));

export interface BatchWriteOptions {
  /** Attempts per call, the first included (default 10). */
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Delay before the nth resend (default: 50 ms doubling, at most 5 s). */
  delayMs?: (resend: number) => number;
  /** Called with the number of requests each call got through (progress). */
  onWritten?: (n: number) => void;
  /** The error thrown when requests stay unprocessed after `maxAttempts` (default: a plain Error). */
  exhausted?: (left: number, attempts: number) => Error;
  /** Defaults: the process's document client and table. */
  client?: DynamoDBDocumentClient;
  table?: string;
}

/**
 * Writes `requests` (puts and deletes on one table) in as few BatchWriteItem calls as the limits
 * allow, in order; throws `EntryTooLarge` before any call when one item is over 400 KB.
 * Answers how many calls were sent again for unprocessed requests.
 */
export const batchWrite = async (
  requests: WriteRequest[],
  options: BatchWriteOptions = {},
): Promise<{ calls: number; retries: number }> => {
  const client = options.client ?? getDocumentClient();
  const table = options.table ?? tableName();
  return sendInBatches(requests, {
    limits: BATCH_WRITE_ITEM_LIMITS,
    bytes: writeRequestBytes,
    entryBytes: writeRequestItemBytes,
    maxAttempts: options.maxAttempts ?? 10,
    delayMs: options.delayMs ?? ((resend: number) => Math.min(50 * 2 ** (resend - 1), 5_000)),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    exhausted: (left, attempts) =>
      options.exhausted?.(left.length, attempts) ??
      new Error(`BatchWriteItem left ${String(left.length)} items unprocessed after ${String(attempts)} attempts`),
    send: async (pending) => {
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      const unprocessed = out.UnprocessedItems?.[table] ?? [];
      options.onWritten?.(pending.length - unprocessed.length);
      return unprocessed;
    },
  });
};
