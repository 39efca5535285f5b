import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import type { ApiKeyRecord } from './credential';

/** Keys are stored by their SHA-256 hash only; the plain key is never written. */
export const apiKeyRepository = {
  async put(record: ApiKeyRecord): Promise<void> {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.apiKey(record.keyHash), type: 'APIKEY', ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
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
