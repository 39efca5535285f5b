/**
 * Writes of the key lifecycle that only the admin CLI makes (kept out of api-key-repository.ts,
 * which every keyed handler bundles): the rotation's transaction, and finding and giving ids to
 * keys stored before public ids existed.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { newKeyWrites } from '@shared/auth/api-key-repository';
import type { ApiKeyRecord } from '@shared/auth/credential';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import { scanTable } from './workspace-items';

/** DynamoDB's limit of actions in one TransactWriteItems. */
const MAX_TRANSACTION_ACTIONS = 100;

export const apiKeyMaintenance = {
  /**
   * A rotation in one transaction, so nothing is half-written: the new key (only if its hash is
   * new) with its origin-index items, and the old key's end moved to `previousExpiresAt`, only if
   * the old key still exists, is not revoked and still ends when it did when it was read
   * (`readExpiresAt`: a concurrent rotation or revocation cancels this one). Returns which
   * condition refused it, if one did (then nothing was written); any other cancellation (a
   * conflicting transaction) is thrown. `alongside` (such as the rotation's audit entry) is
   * written in the same transaction.
   */
  async rotate(
    fresh: ApiKeyRecord,
    old: { keyHash: string; readExpiresAt: string | null },
    previousExpiresAt: string,
    alongside: Record<string, unknown>[] = [],
  ): Promise<'rotated' | 'old-key-changed' | 'new-key-exists'> {
    const unchangedEnd =
      old.readExpiresAt === null ? '(attribute_not_exists(expiresAt) OR expiresAt = :null)' : 'expiresAt = :read';
    const writes = [
      ...newKeyWrites(fresh),
      ...alongside,
      {
        Update: {
          TableName: tableName(),
          Key: keys.apiKey(old.keyHash),
          UpdateExpression: 'SET expiresAt = :e',
          ConditionExpression: `attribute_exists(pk) AND revoked = :f AND ${unchangedEnd}`,
          ExpressionAttributeValues: {
            ':e': previousExpiresAt,
            ':f': false,
            ...(old.readExpiresAt === null ? { ':null': null } : { ':read': old.readExpiresAt }),
          },
        },
      },
    ];
    if (writes.length > MAX_TRANSACTION_ACTIONS)
      throw new Error(
        `A key with ${writes.length - 2 - alongside.length} browser origins is too large to rotate in one transaction`,
      );
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: writes }));
      return 'rotated';
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const refused = (index: number) => error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';
      if (refused(writes.length - 1)) return 'old-key-changed';
      if (refused(0)) return 'new-key-exists';
      throw error;
    }
  },
  /**
   * Keys stored before public ids existed (no `keyId`), optionally of one workspace. They are in
   * no index (the id indexes are keyed by the id), so this is a paged, parallel Scan of the whole
   * table, filtered on the server; `onPage` gets the items each page read (progress).
   */
  async listWithoutId(
    options: { workspaceId?: string; onPage?: (scanned: number) => void; segments?: number } = {},
  ): Promise<{ records: ApiKeyRecord[]; scanned: number }> {
    const records: ApiKeyRecord[] = [];
    const scanned = await scanTable((item) => records.push(strip(item) as ApiKeyRecord), {
      ...(options.segments === undefined ? {} : { segments: options.segments }),
      ...(options.onPage ? { onPage: options.onPage } : {}),
      filter: {
        expression: `#type = :apikey AND attribute_not_exists(keyId)${options.workspaceId === undefined ? '' : ' AND workspaceId = :ws'}`,
        names: { '#type': 'type' },
        values: { ':apikey': 'APIKEY', ...(options.workspaceId === undefined ? {} : { ':ws': options.workspaceId }) },
      },
    });
    return { records: records.sort((a, b) => a.createdAt.localeCompare(b.createdAt)), scanned };
  },
  /**
   * Gives a key stored before ids its public id and puts it in the id and workspace indexes, only
   * if it still has no id (`attribute_not_exists(keyId)`). Returns false when it already had one
   * (another backfill got there first): nothing is overwritten.
   */
  async assignId(record: Pick<ApiKeyRecord, 'keyHash' | 'workspaceId' | 'createdAt'>, keyId: string): Promise<boolean> {
    const byId = keys.apiKeyById(keyId);
    const ofWorkspace = keys.apiKeysOfWorkspace(record.workspaceId, record.createdAt, keyId);
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.apiKey(record.keyHash),
          UpdateExpression: 'SET keyId = :id, gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(keyId)',
          ExpressionAttributeValues: {
            ':id': keyId,
            ':g1pk': byId.gsi1pk,
            ':g1sk': byId.gsi1sk,
            ':g2pk': ofWorkspace.gsi2pk,
            ':g2sk': ofWorkspace.gsi2sk,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
};
