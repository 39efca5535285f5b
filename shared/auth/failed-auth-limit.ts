import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { authFailureLimit } from '@shared/config/auth-failure-limit';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { AppError } from '@shared/errors/app-error';
import { sha256Hex } from '@shared/util/hash';
import { log } from '@shared/util/logger';

/** The failed-authentication window, in seconds. */
export const AUTH_FAILURE_WINDOW_SECONDS = 300;

/**
 * Counts one failed key (unknown, revoked or expired) presented from `address` and, past the
 * limit (`AUTH_FAILURE_LIMIT`, read once: shared/config/auth-failure-limit.ts) in the current
 * five-minute window, answers 429 `rate_limited` instead of 401. Only
 * failures are counted: a valid key never reaches this, so it is never slowed. The address is
 * stored hashed. If the counter cannot be written the failure stays a plain 401 (logged): the
 * limiter never takes the API down.
 */
export const countFailedAuth = async (address: string | null, now: number): Promise<void> => {
  if (!address) return;
  const windowStart = Math.floor(now / 1000 / AUTH_FAILURE_WINDOW_SECONDS) * AUTH_FAILURE_WINDOW_SECONDS;
  let count: number;
  try {
    const out = await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.authFailureCounter(sha256Hex(`authfail:${address}`), windowStart),
        UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl), #type = if_not_exists(#type, :type)',
        ExpressionAttributeNames: { '#n': 'n', '#ttl': 'ttl', '#type': 'type' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':ttl': windowStart + 2 * AUTH_FAILURE_WINDOW_SECONDS,
          ':type': 'RATE',
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    count = Number(out.Attributes?.n ?? 1);
  } catch (error) {
    log('warn', 'failed-authentication counter unavailable', { error: (error as Error).message });
    return;
  }
  const limit = authFailureLimit();
  if (count <= limit) return;
  const retryAfter = Math.max(1, windowStart + AUTH_FAILURE_WINDOW_SECONDS - Math.floor(now / 1000));
  throw new AppError(
    'rate_limited',
    `Too many failed API keys from this address: retry after ${retryAfter} seconds`,
    { limit, windowSeconds: AUTH_FAILURE_WINDOW_SECONDS, retryAfterSeconds: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
};
