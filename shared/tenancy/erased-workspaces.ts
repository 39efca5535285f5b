/**
 * Tombstones of erased workspaces. SQS messages cannot be deleted selectively, and a batch kept
 * by a stream consumer or an errors/ object downloaded for a replay may outlive the erasure; so
 * `admin delete-workspace` records a tombstone before it erases anything, and every replayer of
 * such copies (the spool's redrive, `admin replay-events`, `admin replay-stream-failures`,
 * `admin replay-lake-errors`) drops the events of a workspace that has one.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { KEPT_FAILURE_DAYS } from '@shared/events/consumer-retention';

/**
 * How long a tombstone stays (DynamoDB TTL): longer than any copy it guards lives. Spooled
 * events live at most 14 days (the spool queues' retention, counted from the first send), kept
 * failures and the lake's errors/ objects 30 days; a week more covers a replay of a copy
 * downloaded just before it expired.
 */
export const TOMBSTONE_DAYS = KEPT_FAILURE_DAYS + 7;

export interface TombstoneOptions {
  client?: DynamoDBDocumentClient;
  table?: string;
}

/** Records that `workspaceId` is erased (idempotent: a second erasure renews the tombstone); answers until when. */
export const recordErasure = async (
  workspaceId: string,
  now = new Date(),
  options: TombstoneOptions = {},
): Promise<Date> => {
  const ttl = Math.floor(now.getTime() / 1000) + TOMBSTONE_DAYS * 24 * 3600;
  await (options.client ?? getDocumentClient()).send(
    new PutCommand({
      TableName: options.table ?? tableName(),
      Item: {
        ...keys.erasedWorkspace(workspaceId),
        type: 'ERASED',
        erasedAt: now.toISOString(),
        ttl,
      },
    }),
  );
  return new Date(ttl * 1000);
};

/** Answers which of some workspaces are erased. */
export type ErasedCheck = (workspaceIds: Iterable<string>) => Promise<Set<string>>;

/**
 * The check the replayers use: one consistent GetItem per workspace not known to be erased yet
 * (a workspace once erased stays so, and is remembered; a live one is asked again on every call,
 * so a replay running while the erasure starts drops its events from the next message on).
 */
export const createErasedCheck = (options: TombstoneOptions = {}): ErasedCheck => {
  const erased = new Set<string>();
  return async (workspaceIds) => {
    const unknown = [...new Set(workspaceIds)].filter((id) => !erased.has(id));
    await Promise.all(
      unknown.map(async (workspaceId) => {
        const out = await (options.client ?? getDocumentClient()).send(
          new GetCommand({
            TableName: options.table ?? tableName(),
            Key: keys.erasedWorkspace(workspaceId),
            ConsistentRead: true,
          }),
        );
        if (out.Item) erased.add(workspaceId);
      }),
    );
    return new Set([...new Set(workspaceIds)].filter((id) => erased.has(id)));
  };
};

/** Splits `items` into those of live workspaces (kept, in order) and the number dropped as erased. */
export const dropErased = async <T>(
  items: T[],
  workspaceOf: (item: T) => string | undefined,
  check: ErasedCheck,
): Promise<{ kept: T[]; dropped: number }> => {
  const ids = items.map(workspaceOf).filter((id): id is string => id !== undefined);
  if (ids.length === 0) return { kept: items, dropped: 0 };
  const erased = await check(ids);
  if (erased.size === 0) return { kept: items, dropped: 0 };
  const kept = items.filter((item) => {
    const id = workspaceOf(item);
    return id === undefined || !erased.has(id);
  });
  return { kept, dropped: items.length - kept.length };
};
