import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '@shared/db/batch-get';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import { browserOriginItems } from './browser-origins';
import type { ApiKeyRecord } from './credential';

/** The writes that store a new key: the key item (only if its hash is new) and a browser key's origin-index items. */
export const newKeyWrites = (record: ApiKeyRecord) => [
  {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.apiKey(record.keyHash),
        ...(record.keyId
          ? {
              ...keys.apiKeyById(record.keyId),
              ...keys.apiKeysOfWorkspace(record.workspaceId, record.createdAt, record.keyId),
            }
          : {}),
        type: 'APIKEY',
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  ...browserOriginItems(record).map((Item) => ({ Put: { TableName: tableName(), Item } })),
];

/** Keys are stored by their SHA-256 hash only; the plain key is never written. */
export const apiKeyRepository = {
  /**
   * The key, and for a browser publishable key its origin-index items, in one transaction, with
   * `alongside` (such as the change's audit entry) in the same transaction.
   */
  async put(record: ApiKeyRecord, alongside: Record<string, unknown>[] = []): Promise<void> {
    await getDocumentClient().send(
      new TransactWriteCommand({ TransactItems: [...newKeyWrites(record), ...alongside] }),
    );
  },
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyHash) }));
    return out.Item ? (strip(out.Item) as ApiKeyRecord) : undefined;
  },
  /** A key by its public id (`key_...`), through the id index; undefined when no key has that id. */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const index = keys.apiKeyById(keyId);
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
      }),
    );
    const pk: unknown = out.Items?.[0]?.pk;
    if (typeof pk !== 'string') return undefined;
    return this.findByHash(pk.slice('APIKEY#'.length));
  },
  /** Every key of a workspace that has a public id, oldest first (the index, then the items in batches of 100). */
  async listByWorkspace(workspaceId: string): Promise<ApiKeyRecord[]> {
    const pks: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': `WSKEYS#${workspaceId}` },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) pks.push(String(item.pk));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    const items = await batchGetItems(pks.map((pk) => ({ pk, sk: 'APIKEY' })));
    const records = items.map((item) => strip(item) as ApiKeyRecord);
    return records.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || (a.keyId ?? '').localeCompare(b.keyId ?? ''),
    );
  },
  /**
   * Marks the key revoked and removes every index it had (a browser key's origin-index items,
   * so preflights for its origins stop passing), in one transaction (further origin deletes in
   * follow-up transactions past DynamoDB's 100 actions). Idempotent: revoking again removes any
   * index item still left by an earlier revocation. Returns how many index items it cleared (deleted, or already absent);
   * throws ConditionalCheckFailed (via the transaction) when no such key exists. `alongside` (such as
   * the revocation's audit entry) goes in the first transaction, with the key's update.
   */
  async revoke(
    keyHash: string,
    now = new Date().toISOString(),
    alongside: Record<string, unknown>[] = [],
  ): Promise<{ indexItemsCleared: number }> {
    const record = await this.findByHash(keyHash);
    const origins = record ? browserOriginItems(record).map(({ pk, sk }) => ({ pk, sk })) : [];
    const update = {
      Update: {
        TableName: tableName(),
        Key: keys.apiKey(keyHash),
        UpdateExpression: 'SET revoked = :t, revokedAt = if_not_exists(revokedAt, :now)',
        // With an audit entry alongside, only the run that flips the key writes it: of concurrent
        // revocations, the others are refused by this condition (and write no second entry).
        ConditionExpression: alongside.length
          ? 'attribute_exists(pk) AND (attribute_not_exists(revoked) OR revoked = :f)'
          : 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true, ':now': now, ...(alongside.length ? { ':f': false } : {}) },
      },
    };
    if (origins.length === 0 && alongside.length === 0) {
      await getDocumentClient().send(new UpdateCommand(update.Update));
      return { indexItemsCleared: 0 };
    }
    const deletes = origins.map((Key) => ({ Delete: { TableName: tableName(), Key } }));
    const first = 100 - 1 - alongside.length;
    await getDocumentClient().send(
      new TransactWriteCommand({ TransactItems: [update, ...alongside, ...deletes.slice(0, first)] }),
    );
    for (let i = first; i < deletes.length; i += 100) {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: deletes.slice(i, i + 100) }));
    }
    return { indexItemsCleared: origins.length };
  },
};
