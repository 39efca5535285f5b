import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { sendInBatches } from '@shared/util/batch-send';
import { utf8Bytes, type BatchLimits } from '@shared/util/byte-batches';
import { getDocumentClient, tableName } from './dynamo-client';

type Key = Record<string, unknown>;

/** DynamoDB BatchGetItem: at most 100 keys per call (and 16 MB of request, far above 100 keys). */
export const BATCH_GET_ITEM_LIMITS: BatchLimits = {
  api: 'DynamoDB BatchGetItem',
  maxEntries: 100,
  maxBytes: 16_000_000,
};

/**
 * The items of these keys on the table (keys with no item are simply absent), in BatchGetItem
 * calls of 100 keys through the one batch-and-resend helper (shared/util/batch-send.ts): the keys a
 * call returns unprocessed are asked again after 50 ms, doubling up to 1 s, until none are left.
 */
export const batchGetItems = async (itemKeys: Key[]): Promise<Key[]> => {
  const table = tableName();
  const items: Key[] = [];
  await sendInBatches(itemKeys, {
    limits: BATCH_GET_ITEM_LIMITS,
    bytes: (key) => utf8Bytes(JSON.stringify(key)),
    maxAttempts: Infinity,
    delayMs: (resend) => Math.min(1000, 25 * 2 ** resend),
    exhausted: (left) => new Error(`BatchGetItem left ${String(left.length)} keys unprocessed`),
    send: async (keys) => {
      const out = await getDocumentClient().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys } } }));
      items.push(...(out.Responses?.[table] ?? []));
      return out.UnprocessedKeys?.[table]?.Keys ?? [];
    },
  });
  return items;
};
