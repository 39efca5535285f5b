import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { log } from '@shared/util/logger';
import type { ApiKeyRecord } from './credential';
import { publicKeyIdOf } from './key-id';

/** The one update expression the key-last-used grant allows (lib/service-function.ts, shared/local/grant-guard.ts). */
export const LAST_USED_UPDATE = 'SET lastUsedOn = :day';

/**
 * Records the UTC day a key was used, at most one write per key per day: skipped when the record
 * read for authentication already carries today, and conditional (only forward) so concurrent
 * first requests of the day write once. Awaited inside the request (a Lambda may be frozen after
 * its response); a failure is logged and never fails the request. Keyed routes only: the redirect
 * path authenticates no key and never calls it.
 */
export const recordLastUse = async (
  record: Pick<ApiKeyRecord, 'keyHash' | 'keyId' | 'createdAt' | 'lastUsedOn'>,
  now: number,
) => {
  const day = new Date(now).toISOString().slice(0, 10);
  if (record.lastUsedOn !== undefined && record.lastUsedOn >= day) return;
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKey(record.keyHash),
        UpdateExpression: LAST_USED_UPDATE,
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastUsedOn) OR lastUsedOn < :day)',
        ExpressionAttributeValues: { ':day': day },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return;
    log('warn', 'Could not record the last use of a key', {
      keyId: publicKeyIdOf(record),
      error: error instanceof Error ? error.name : String(error),
    });
  }
};
