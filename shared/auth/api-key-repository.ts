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
    return out.Item ? strip<ApiKeyRecord>(out.Item) : undefined;
  },
  async revoke(keyHash: string): Promise<void> {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKey(keyHash),
        UpdateExpression: 'SET revoked = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
  },
};
