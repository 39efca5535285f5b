import {
  BatchGetCommand,
  GetCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import { browserOriginItems } from './browser-origins';
import type { ApiKeyRecord } from './credential';

/** The writes that store a new key: the key item (only if its hash is new) and a browser key's origin-index items. */
const newKeyWrites = (record: ApiKeyRecord) => [
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

/** DynamoDB's limit of actions in one TransactWriteItems. */
const MAX_TRANSACTION_ACTIONS = 100;

/** Keys are stored by their SHA-256 hash only; the plain key is never written. */
export const apiKeyRepository = {
  /** The key, and for a browser publishable key its origin-index items, in one transaction. */
  async put(record: ApiKeyRecord): Promise<void> {
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: newKeyWrites(record) }));
  },
  /**
   * A rotation in one transaction, so nothing is half-written: the new key (only if its hash is
   * new) with its origin-index items, and the old key's end moved to `previousExpiresAt`, only if
   * the old key still exists, is not revoked and still ends when it did when it was read
   * (`readExpiresAt`: a concurrent rotation or revocation cancels this one). Returns which
   * condition refused it, if one did (then nothing was written); any other cancellation (a
   * conflicting transaction) is thrown.
   */
  async rotate(
    fresh: ApiKeyRecord,
    old: { keyHash: string; readExpiresAt: string | null },
    previousExpiresAt: string,
  ): Promise<'rotated' | 'old-key-changed' | 'new-key-exists'> {
    const unchangedEnd =
      old.readExpiresAt === null ? '(attribute_not_exists(expiresAt) OR expiresAt = :null)' : 'expiresAt = :read';
    const writes = [
      ...newKeyWrites(fresh),
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
      throw new Error(`A key with ${writes.length - 2} browser origins is too large to rotate in one transaction`);
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
    const segments = options.segments ?? 4;
    const records: ApiKeyRecord[] = [];
    let scanned = 0;
    await Promise.all(
      Array.from({ length: segments }, async (_, segment) => {
        let startKey: Record<string, unknown> | undefined;
        do {
          const out = await getDocumentClient().send(
            new ScanCommand({
              TableName: tableName(),
              Segment: segment,
              TotalSegments: segments,
              FilterExpression: `#type = :apikey AND attribute_not_exists(keyId)${options.workspaceId === undefined ? '' : ' AND workspaceId = :ws'}`,
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: {
                ':apikey': 'APIKEY',
                ...(options.workspaceId === undefined ? {} : { ':ws': options.workspaceId }),
              },
              ExclusiveStartKey: startKey,
            }),
          );
          for (const item of out.Items ?? []) records.push(strip(item) as ApiKeyRecord);
          scanned += out.ScannedCount ?? 0;
          options.onPage?.(out.ScannedCount ?? 0);
          startKey = out.LastEvaluatedKey;
        } while (startKey);
      }),
    );
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
    const records: ApiKeyRecord[] = [];
    for (let i = 0; i < pks.length; i += 100) {
      let request = { [tableName()]: { Keys: pks.slice(i, i + 100).map((pk) => ({ pk, sk: 'APIKEY' })) } };
      for (;;) {
        const out = await getDocumentClient().send(new BatchGetCommand({ RequestItems: request }));
        for (const item of out.Responses?.[tableName()] ?? []) records.push(strip(item) as ApiKeyRecord);
        const left = out.UnprocessedKeys;
        if (!left || Object.keys(left).length === 0) break;
        request = left as typeof request;
      }
    }
    return records.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || (a.keyId ?? '').localeCompare(b.keyId ?? ''),
    );
  },
  /**
   * Marks the key revoked and removes every index it had (a browser key's origin-index items,
   * so preflights for its origins stop passing), in one transaction (further origin deletes in
   * follow-up transactions past DynamoDB's 100 actions). Idempotent: revoking again removes any
   * index item still left by an earlier revocation. Returns how many index items it cleared (deleted, or already absent);
   * throws ConditionalCheckFailed (via the transaction) when no such key exists.
   */
  async revoke(keyHash: string, now = new Date().toISOString()): Promise<{ indexItemsCleared: number }> {
    const record = await this.findByHash(keyHash);
    const origins = record ? browserOriginItems(record).map(({ pk, sk }) => ({ pk, sk })) : [];
    const update = {
      Update: {
        TableName: tableName(),
        Key: keys.apiKey(keyHash),
        UpdateExpression: 'SET revoked = :t, revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true, ':now': now },
      },
    };
    if (origins.length === 0) {
      await getDocumentClient().send(new UpdateCommand(update.Update));
      return { indexItemsCleared: 0 };
    }
    const deletes = origins.map((Key) => ({ Delete: { TableName: tableName(), Key } }));
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [update, ...deletes.slice(0, 99)] }));
    for (let i = 99; i < deletes.length; i += 100) {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: deletes.slice(i, i + 100) }));
    }
    return { indexItemsCleared: origins.length };
  },
};
