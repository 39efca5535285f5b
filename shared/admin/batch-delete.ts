/**
 * Deletes items by key with BatchWriteItem (shared/db/batch-write.ts: cut by count and bytes,
 * unprocessed keys sent again with exponential backoff); after `maxAttempts` it throws, and the
 * command can simply be run again: deletes are idempotent.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '@shared/db/batch-write';
import type { ItemKey } from '@shared/db/keys';
import { AdminError } from './admin-error';

export interface BatchDeleteOptions {
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Called with the number of items each completed batch removed (progress). */
  onDeleted?: (n: number) => void;
  /** Defaults: the process's document client and table. */
  client?: DynamoDBDocumentClient;
  table?: string;
}

export const batchDeleteKeys = async (
  itemKeys: ItemKey[],
  options: BatchDeleteOptions = {},
): Promise<{ retries: number }> => {
  const { retries } = await batchWrite(
    itemKeys.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })),
    {
      maxAttempts: options.maxAttempts ?? 10,
      sleep: options.sleep,
      onWritten: options.onDeleted,
      client: options.client,
      table: options.table,
      exhausted: (left, attempts) =>
        new AdminError(
          'incomplete',
          `BatchWriteItem left ${String(left)} items unprocessed after ${String(attempts)} attempts; run the command again`,
        ),
    },
  );
  return { retries };
};
