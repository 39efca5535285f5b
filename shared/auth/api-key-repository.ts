import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import { browserOriginItems } from './browser-origins';
import type { ApiKeyRecord } from './credential';

/** Keys are stored by their SHA-256 hash only; the plain key is never written. */
export const apiKeyRepository = {
  /** The key, and for a browser publishable key its origin-index items, in one transaction. */
  async put(record: ApiKeyRecord): Promise<void> {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.apiKey(record.keyHash), type: 'APIKEY', ...record },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...browserOriginItems(record).map((Item) => ({ Put: { TableName: tableName(), Item } })),
        ],
      }),
    );
  },
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyHash) }));
    return out.Item ? (strip(out.Item) as ApiKeyRecord) : undefined;
  },
  /**
   * Marks the key revoked and removes every index it had (a browser key's origin-index items,
   * so preflights for its origins stop passing), in one transaction (further origin deletes in
   * follow-up transactions past DynamoDB's 100 actions). Idempotent: revoking again removes any
   * index item still left by an earlier revocation. Returns how many index items it cleared (deleted, or already absent);
   * throws ConditionalCheckFailed (via the transaction) when no such key exists.
   */
  async revoke(keyHash: string): Promise<{ indexItemsCleared: number }> {
    const record = await this.findByHash(keyHash);
    const origins = record ? browserOriginItems(record).map(({ pk, sk }) => ({ pk, sk })) : [];
    const update = {
      Update: {
        TableName: tableName(),
        Key: keys.apiKey(keyHash),
        UpdateExpression: 'SET revoked = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
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
