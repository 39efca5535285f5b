import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { hashApiKey } from '@shared/auth/api-keys';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { runAdminJson } from '@test/support/admin-cli';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const ORIGIN = 'https://shop.revocation.example';

let t: TestStack;
let tenant: BootstrapResult;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Revoked', browserOrigin: ORIGIN });
});

const preflight = () =>
  http(t.baseUrl, 'OPTIONS', '/v1/client/resolve', {
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-publishable-key,content-type',
    },
  });
const resolve = () =>
  http(t.baseUrl, 'POST', '/v1/client/resolve', {
    headers: { 'x-publishable-key': tenant.publishableKeys.browser.key, origin: ORIGIN, 'user-agent': IPHONE },
    json: { linkId: 'lnk_none' },
  });
const originItem = () =>
  getDocumentClient().send(
    new GetCommand({
      TableName: process.env.TABLE_NAME,
      Key: keys.browserOrigin(ORIGIN, hashApiKey(tenant.publishableKeys.browser.key)),
      ConsistentRead: true,
    }),
  );

describe('revoking a browser publishable key', () => {
  it('removes its origin index: the preflight and the request both fail, and revoking again is harmless', async () => {
    const before = await preflight();
    expect(before.status).toBe(204);
    expect(before.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect((await resolve()).status).not.toBe(401);
    expect((await originItem()).Item).toBeDefined();

    expect(await runAdminJson(['revoke-key', tenant.publishableKeys.browser.key])).toEqual({
      revoked: true,
      indexItemsCleared: 1,
    });

    expect((await originItem()).Item).toBeUndefined();
    const after = await preflight();
    expect(after.status).toBe(204);
    expect(after.headers.get('access-control-allow-origin')).toBeNull();
    const request = await resolve();
    expect(request.status).toBe(401);
    expect(request.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });

    expect(await runAdminJson(['revoke-key', tenant.publishableKeys.browser.key])).toEqual({
      revoked: true,
      indexItemsCleared: 1,
    });
    // Other workspaces' browser keys keep their origins.
    const other = await http(t.baseUrl, 'OPTIONS', '/v1/client/resolve', {
      headers: { origin: t.tenantA.publishableKeys.browser.origin, 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBe(t.tenantA.publishableKeys.browser.origin);
  });
});
