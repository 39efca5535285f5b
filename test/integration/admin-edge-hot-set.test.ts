import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BootstrapResult } from '@shared/admin/bootstrap';
import { clickHourOf, liveHumans } from '@shared/clicks/link-counters';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { HotSetView } from '@shared/edge/hot-links/hot-set-view';
import { createHotSetWriter } from '@shared/edge/hot-links/kvs-writer';
import { refreshHotSet } from '@shared/edge/hot-links/refresh-hot-set';
import { insertLink } from '@shared/links/create-link';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { runAdmin, runAdminFailing, runAdminJson } from '@test/support/admin-cli';
import { type LocalKvs } from '@shared/local/local-kvs-server';
import { startHotLinksFixture, type HotLinksFixture } from '@test/support/hot-links';
import { TEST_ORIGIN } from '@test/support/test-origin';

let fixture: HotLinksFixture;
let tenant: BootstrapResult;
let kvs: LocalKvs;
let client: CloudFrontKeyValueStoreClient;
/** The CLI reaches the loopback by `localhost` (the client puts the account id in front of the host). */
let storeFlags: string[];
const credentials = { AWS_ACCESS_KEY_ID: 'AKIDLOOPBACK', AWS_SECRET_ACCESS_KEY: 'loopback-secret' };

beforeAll(async () => {
  fixture = await startHotLinksFixture();
  ({ tenant, kvs, client } = fixture);
  storeFlags = ['--kvs-arn', kvs.arn, '--kvs-endpoint', `http://localhost:${new URL(kvs.endpoint).port}`];
});
afterAll(() => fixture.stop());

const newHotLink = async (url: string, expiresAt: string | null, now: Date) => {
  const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
  const link = await insertLink(
    { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url },
    { expiresAt },
    TEST_ORIGIN,
  );
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.link(link.id),
      UpdateExpression: 'SET #h = :n',
      ExpressionAttributeNames: { '#h': liveHumans(clickHourOf(now.toISOString())) },
      ExpressionAttributeValues: { ':n': 5_000 },
    }),
  );
  return link;
};

describe('admin edge hot-set (loopback KeyValueStore, DynamoDB Local)', () => {
  it('lists the hot links, the bytes used of the 5 MB store, the item count and the last refresh', async () => {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + 86_400_000).toISOString();
    const a = await newHotLink('https://example.com/a', null, now);
    const b = await newHotLink('https://example.com/b', expiresAt, now);
    await refreshHotSet(createHotSetWriter(client, kvs.arn), [a.id, b.id], now);

    const view = await runAdminJson<HotSetView>(['edge', 'hot-set', ...storeFlags], credentials);
    const size = [...kvs.entries].reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
    expect(view.store).toEqual({
      arn: kvs.arn,
      itemCount: 2,
      totalSizeInBytes: size,
      quotaBytes: 5 * 1024 * 1024,
      usedPercent: Math.round((size / (5 * 1024 * 1024)) * 10_000) / 100,
    });
    const keyOf = (l: { domain: string; key: string }) => `${l.domain.toLowerCase()}/${l.key}`;
    expect(view.entries).toEqual(
      [
        { key: keyOf(a), linkId: a.id, location: 'https://example.com/a', version: a.updatedAt, expiresAt: null },
        { key: keyOf(b), linkId: b.id, location: 'https://example.com/b', version: b.updatedAt, expiresAt },
      ]
        .sort((x, y) => x.key.localeCompare(y.key))
        .map((e) => expect.objectContaining(e)),
    );
    expect(view.refresh).toMatchObject({ at: now.toISOString(), hot: 2, puts: 2, deletes: 0 });
    expect(view.refresh!.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(view.candidates).toBe(0);
    // Read-only: only DescribeKeyValueStore and ListKeys reached the store.
    expect(kvs.requests.filter((r) => r.method === 'POST')).toHaveLength(1);

    const text = await runAdmin(['edge', 'hot-set', ...storeFlags], credentials);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Hot set: 2 links at the edge.');
    expect(text.stdout).toContain(`${keyOf(a)}  ->  https://example.com/a`);
    expect(text.stdout).toMatch(/bytes used:\s+\d+ \(0\.00 MB of 5\.00 MB/);
  });

  it('refuses without a store, with a malformed ARN or endpoint, and says why', async () => {
    const none = await runAdminFailing(['edge', 'hot-set', '--json'], { HOT_LINKS_KVS_ARN: '' });
    expect(JSON.parse(none.stderr.trim() || none.stdout.trim())).toMatchObject({ error: { code: 'not_configured' } });
    const bad = await runAdminFailing(['edge', 'hot-set', '--kvs-arn', 'not-an-arn']);
    expect(bad.stderr).toMatch(/not a CloudFront KeyValueStore ARN/);
    const badEndpoint = await runAdminFailing(['edge', 'hot-set', '--kvs-arn', kvs.arn, '--kvs-endpoint', 'nope']);
    expect(badEndpoint.stderr).toMatch(/--kvs-endpoint is not a URL/);
    const help = await runAdmin(['edge', 'hot-set', '--help']);
    expect(help.stdout).toContain('--kvs-arn <arn>');
  });
});
