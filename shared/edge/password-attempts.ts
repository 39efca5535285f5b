import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { getSecret } from '@shared/secrets/signing-secret';
import { sha256Hex } from '@shared/util/hash';

/** Password tries allowed per client and link in one window; beyond: 429 until the window ends. */
export const MAX_PASSWORD_ATTEMPTS = 5;
export const PASSWORD_WINDOW_MS = 15 * 60_000;

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A client is its salted IP hash (raw IPs are never stored). */
const attemptKey = async (linkId: string, ip: string | null) =>
  keys.passwordAttempts(linkId, sha256Hex(`${await getSecret('ip-salt')}|${ip ?? ''}`).slice(0, 32));

const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException';

/**
 * Counts one try before the password is checked (so parallel guesses cannot overrun the limit):
 * a fixed window per client and link, held in one item with a TTL. Both writes are conditional,
 * so concurrent tries are counted exactly.
 */
export const reservePasswordAttempt = async (
  linkId: string,
  ip: string | null,
  now = Date.now(),
): Promise<AttemptVerdict> => {
  const Key = await attemptKey(linkId, ip);
  const client = getDocumentClient();
  const windowEnds = now + PASSWORD_WINDOW_MS;
  try {
    // A new window: no item yet, or the previous window is over (TTL deletion is lazy).
    await client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET attempts = :one, windowEnds = :end, #ttl = :ttl, #type = :type',
        ConditionExpression: 'attribute_not_exists(pk) OR windowEnds <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#type': 'type' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':end': windowEnds,
          ':ttl': Math.ceil(windowEnds / 1000) + 60,
          ':type': 'PWTRY',
          ':now': now,
        },
      }),
    );
    return { allowed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: 'attempts < :max AND windowEnds > :now',
        ExpressionAttributeValues: { ':one': 1, ':max': MAX_PASSWORD_ATTEMPTS, ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { allowed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const ends = error.Item ? Number(unmarshall(error.Item).windowEnds) : windowEnds;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((ends - now) / 1000)) };
  }
};

/** The right password clears the client's count (a returning visitor is not locked out). */
export const clearPasswordAttempts = async (linkId: string, ip: string | null): Promise<void> => {
  await getDocumentClient().send(new DeleteCommand({ TableName: tableName(), Key: await attemptKey(linkId, ip) }));
};
