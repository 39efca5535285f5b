import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKeyById } from '@shared/admin/api-key-lifecycle';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { provideServices, resetServices } from '@shared/runtime/services';

let t: TestStack;
beforeAll(async () => {
  process.env.AUTH_FAILURE_LIMIT = '5';
  t = await startTestStack();
});
afterAll(async () => {
  delete process.env.AUTH_FAILURE_LIMIT;
  await t.stop();
});
afterEach(() => {
  resetServices('clocks');
});

const listLinks = (key?: string) =>
  http(t.baseUrl, 'GET', '/v1/links', { headers: key === undefined ? {} : { 'api-key': key } });

describe('failed key authentications per address', () => {
  it('past the limit, failing keys get 429 until the window ends; a valid key from the same address never does', async () => {
    // A window of its own: the start of a five-minute window far from the real clock.
    const windowStart = Date.parse('2032-01-01T00:00:00Z');
    provideServices({ clocks: { keys: () => windowStart + 1000 } });
    const valid = await issueKey({ workspaceId: t.tenantA.workspaceId, kind: 'server', name: 'ok', scopes: ['read'] });
    const revoked = await issueKey({
      workspaceId: t.tenantA.workspaceId,
      kind: 'server',
      name: 'gone',
      scopes: ['read'],
    });
    await revokeKeyById(revoked.id);

    // A missing key is not a credential: 401, not counted.
    for (let i = 0; i < 8; i += 1) expect((await listLinks()).status).toBe(401);
    for (let i = 0; i < 4; i += 1) expect((await listLinks(`sk_unknown_${i}`)).status).toBe(401);
    expect((await listLinks(revoked.key)).status).toBe(401); // the fifth failure: still 401

    const slowed = await listLinks('sk_unknown_again');
    expect(slowed.status).toBe(429);
    expect(slowed.body.error.code).toBe('rate_limited');
    expect(slowed.headers.get('retry-after')).toBe('299');
    expect((await listLinks(revoked.key)).status).toBe(429);

    // The valid key from the same address is neither counted nor slowed.
    for (let i = 0; i < 3; i += 1) expect((await listLinks(valid.key)).status).toBe(200);

    // The next window starts afresh.
    provideServices({ clocks: { keys: () => windowStart + 300_000 } });
    expect((await listLinks('sk_unknown_later')).status).toBe(401);
  });
});
