import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { log } from '@shared/util/logger';

export interface AnalyticsCacheKey {
  workspaceId: string;
  route: string;
  /** The link or app the answer is about. */
  subjectId: string;
  range: string;
  traffic: string;
}

/**
 * Answers an engine had to compute (Athena) are kept in the table for `ttlSeconds` so a
 * dashboard refresh does not run the queries again. `ttl` lets DynamoDB delete the item later;
 * reads check the expiry themselves (TTL deletion lags). A failing cache never fails a request.
 */
export const withAnalyticsCache = async <T>(
  key: AnalyticsCacheKey,
  ttlSeconds: number,
  now: Date,
  compute: () => Promise<T>,
): Promise<T> => {
  if (ttlSeconds <= 0) return compute();
  const itemKey = keys.analyticsCache(key.workspaceId, key.route, key.subjectId, key.range, key.traffic);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  try {
    const hit = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: itemKey }));
    if (
      hit.Item &&
      typeof hit.Item.ttl === 'number' &&
      hit.Item.ttl > nowSeconds &&
      typeof hit.Item.data === 'string'
    ) {
      return JSON.parse(hit.Item.data) as T;
    }
  } catch (error) {
    log('warn', 'analytics cache read failed', { error: String(error) });
  }
  const value = await compute();
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...itemKey,
          type: 'ANALYTICS_CACHE',
          data: JSON.stringify(value),
          computedAt: now.toISOString(),
          ttl: nowSeconds + ttlSeconds,
        },
      }),
    );
  } catch (error) {
    log('warn', 'analytics cache write failed', { error: String(error) });
  }
  return value;
};
