import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';

export const secretNames = ['cursor-signing', 'visitor-salt', 'ip-salt'] as const;
export type SecretName = (typeof secretNames)[number];

const cache = new Map<SecretName, Promise<string>>();

/**
 * A per-deployment random secret (256 bits), created on first use with a conditional put and
 * kept in the table, then cached for the life of the process. No secret in the environment,
 * no extra service on the cold path beyond one GetItem.
 */
export const getSecret = (name: SecretName): Promise<string> => {
  let secret = cache.get(name);
  if (!secret) {
    secret = loadOrCreate(name);
    secret.catch(() => cache.delete(name));
    cache.set(name, secret);
  }
  return secret;
};

const loadOrCreate = async (name: SecretName): Promise<string> => {
  const client = getDocumentClient();
  const existing = await client.send(
    new GetCommand({ TableName: tableName(), Key: keys.secret(name), ConsistentRead: true }),
  );
  if (existing.Item?.value) return String(existing.Item.value);
  const value = randomBytes(32).toString('base64url');
  try {
    await client.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.secret(name), type: 'SECRET', value },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return value;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException && error.Item) return String(unmarshall(error.Item).value);
    throw error;
  }
};

/**
 * Creates every secret that does not exist yet. Provisioning (admin bootstrap) calls this, so
 * routes granted only table reads (lists signing cursors, the edge hashing visitors) find
 * their secrets and never need to write them.
 */
export const ensureSecrets = async (): Promise<void> => {
  await Promise.all(secretNames.map((name) => getSecret(name)));
};
