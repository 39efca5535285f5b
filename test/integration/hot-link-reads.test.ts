import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { REDIRECT_HOT_LOOKUPS } from '@shared/edge/redirect-cache';
import { clearRedirectCache, findRedirectRecord } from '@shared/edge/redirect-lookup';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';

/**
 * The edge's slug read of a hot link under DynamoDB's per-key read limit (scaled to 1/20: 150
 * read units per second per key). Both clocks are frozen (the cache's Date.now and the proxy's
 * buckets), so all lookups fall in one second and nothing depends on how fast they run.
 */
let proxy: DynamoFaultProxy;
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, {
    perKeyLimits: { writeUnitsPerSecond: 50, readUnitsPerSecond: 150 },
    now: () => 0,
  });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-23T08:00:00Z'));
  return async () => {
    vi.useRealTimers();
    await proxy.stop();
  };
});

const HOST = 'hot.example.com';
const putSlug = (key: string, url: string) =>
  getDocumentClient().send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.slug(HOST, key), linkId: key, url, archived: false } }),
  );

describe('hot link reads (redirect cache under the per-key read limit)', () => {
  it('1,000 lookups of one link in one second cost 5 reads and meet no throttle', async () => {
    await putSlug('viral', 'https://example.com/viral');
    clearRedirectCache();
    const calls = proxy.counts.calls;
    for (let i = 0; i < 1_000; i++)
      expect((await findRedirectRecord(HOST, 'viral'))?.url).toBe('https://example.com/viral');
    expect(proxy.counts.calls - calls).toBe(REDIRECT_HOT_LOOKUPS);
    expect(proxy.counts.throttles).toBe(0);
  });

  it('400 uncached reads of one key in one second are throttled past 150 units (300 eventually consistent reads)', async () => {
    await putSlug('uncached', 'https://example.com/uncached');
    const results = await Promise.allSettled(
      Array.from({ length: 400 }, () =>
        getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.slug(HOST, 'uncached') })),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThan(0);
    expect(proxy.counts.readThrottles).toBeGreaterThan(0);
  });
});
