/**
 * Deletes items by key in BatchWriteItem calls of 25 (the API's maximum) through the official
 * lib-dynamodb client; unprocessed items (throttling, partition limits) are sent again with
 * exponential backoff until none are left or `maxAttempts` is reached (then it throws, and the
 * command can simply be run again: deletes are idempotent).
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import type { ItemKey } from '@shared/db/keys';
import { AdminError } from './admin-error';

export const BATCH_WRITE_MAX = 25;

export interface BatchDeleteOptions {
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Called with the number of items each completed batch removed (progress). */
  onDeleted?: (n: number) => void;
  /** Defaults: the process's document client and table. */
  client?: DynamoDBDocumentClient;
  table?: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const batchDeleteKeys = async (
  itemKeys: ItemKey[],
  options: BatchDeleteOptions = {},
): Promise<{ retries: number }> => {
  const maxAttempts = options.maxAttempts ?? 10;
  const sleep = options.sleep ?? defaultSleep;
  const client = options.client ?? getDocumentClient();
  const table = options.table ?? tableName();
  let retries = 0;
  for (let i = 0; i < itemKeys.length; i += BATCH_WRITE_MAX) {
    let pending = itemKeys.slice(i, i + BATCH_WRITE_MAX).map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > maxAttempts)
        throw new AdminError(
          'incomplete',
          `BatchWriteItem left ${pending.length} items unprocessed after ${maxAttempts} attempts; run the command again`,
        );
      if (attempt > 1) {
        retries++;
        await sleep(Math.min(50 * 2 ** (attempt - 2), 5_000));
      }
      const before = pending.length;
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
      options.onDeleted?.(before - pending.length);
    }
  }
  return { retries };
};
