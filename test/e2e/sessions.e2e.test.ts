import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKeyById, rotateKey } from '@shared/admin/api-key-lifecycle';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { SESSION_TTL_SECONDS } from '@shared/auth/sessions';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { sha256Hex } from '@shared/util/hash';
import { keys } from '@shared/db/keys';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { provideServices, resetServices } from '@shared/runtime/services';

let t: TestStack;
beforeAll(async () => {
  process.env.AUTH_FAILURE_LIMIT = '3';
  t = await startTestStack();
});
afterAll(async () => {
  delete process.env.AUTH_FAILURE_LIMIT;
  await t.stop();
});
afterEach(() => {
  resetServices('clocks');
});

const CONSOLE = { 'x-requested-with': 'console' };

/** Signs in; the response, its Set-Cookie values and the cookie pair a browser would send back. */
const signIn = async (apiKey: string, headers: Record<string, string> = {}) => {
  const res = await http(t.baseUrl, 'POST', '/v1/sessions', { json: { apiKey }, headers });
  const setCookies = res.headers.getSetCookie();
  const pair = setCookies[0]?.split(';')[0] ?? '';
  return { res, setCookies, cookie: pair };
};

const asConsole = (method: string, path: string, cookie: string, json?: unknown) =>
  http(t.baseUrl, method, path, { headers: { cookie, ...CONSOLE }, json });

describe('POST /v1/sessions (console sign-in)', () => {
  it('exchanges a server key for a __Host- session cookie with the right attributes, and answers in the envelope', async () => {
    const { res, setCookies } = await signIn(t.tenantA.serverKey);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      data: { workspaceId: t.tenantA.workspaceId, scopes: ['all'] },
    });
    const expiresAt = Date.parse((res.body as { data: { expiresAt: string } }).data.expiresAt);
    expect(Math.abs(expiresAt - (Date.now() + SESSION_TTL_SECONDS * 1000))).toBeLessThan(60_000);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(setCookies).toHaveLength(1);
    const [pair = '', ...attributes] = (setCookies[0] ?? '').split(';').map((p) => p.trim());
    expect(pair).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.map((a) => a.toLowerCase()).sort()).toEqual(
      ['httponly', 'max-age=43200', 'path=/', 'samesite=strict', 'secure'].sort(),
    );
    expect(res.text).not.toContain(pair.split('=')[1] ?? 'no token');
  });

  it('stores only the hash of the token, with a TTL, next to the hash of the key', async () => {
    const { cookie } = await signIn(t.tenantA.serverKey);
    const token = cookie.split('=')[1] ?? '';
    const out = await getDocumentClient().send(
      new GetCommand({
        TableName: process.env.TABLE_NAME,
        Key: keys.session(sha256Hex(`session:${token}`)),
        ConsistentRead: true,
      }),
    );
    expect(out.Item).toMatchObject({ keyHash: hashApiKey(t.tenantA.serverKey), workspaceId: t.tenantA.workspaceId });
    expect(typeof out.Item?.ttl).toBe('number');
    expect(JSON.stringify(out.Item)).not.toContain(token);
    expect(JSON.stringify(out.Item)).not.toContain(t.tenantA.serverKey);
  });

  it('a wrong key is 401 with no cookie, a key of another kind 403 with no cookie, a bad body 400', async () => {
    const wrong = await signIn('sk_not-a-real-key');
    expect(wrong.res.status).toBe(401);
    expect(wrong.res.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect(wrong.setCookies).toEqual([]);
    const mobile = await signIn(t.tenantA.mobileKey);
    expect(mobile.res.status).toBe(403);
    expect(mobile.setCookies).toEqual([]);
    const bad = await http(t.baseUrl, 'POST', '/v1/sessions', { json: { key: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('wrong keys count against the failed-auth limit: past it, 429 even for a right key sent after', async () => {
    // A five-minute window of its own, far from the real clock and the other tests.
    const windowStart = Date.parse('2033-03-03T00:00:00Z');
    provideServices({ clocks: { keys: () => windowStart + 1000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await signIn(`sk_wrong-${String(i)}`)).res.status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await signIn('sk_wrong-again');
    expect(limited.res.status).toBe(429);
    expect(limited.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.setCookies).toEqual([]);
  });
});

describe('the session cookie on v1 routes', () => {
  it('with x-requested-with: console answers as the key would, and the audit actor is the key', async () => {
    const { cookie } = await signIn(t.tenantA.serverKey);
    const list = await asConsole('GET', '/v1/links', cookie);
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('ratelimit-policy')).toContain('"server"');
    const created = await asConsole('POST', '/v1/links', cookie, {
      url: 'https://example.com/console-made',
      domain: t.tenantA.domain,
    });
    expect(created.status, created.text).toBe(201);
    const linkId = (created.body as { data: { id: string } }).data.id;
    const audit = await asConsole('GET', `/v1/audit-log?resourceId=${linkId}`, cookie);
    expect(audit.status, audit.text).toBe(200);
    const record = await apiKeyRepository.findByHash(hashApiKey(t.tenantA.serverKey));
    expect((audit.body as { data: Array<{ actor: unknown; action: string }> }).data).toEqual([
      expect.objectContaining({
        action: 'link.created',
        actor: expect.objectContaining({ type: 'api_key', keyId: publicKeyIdOf(record!) }) as unknown,
      }),
    ]);
  });

  it('the cookie alone (no console header) is refused with a clear 401', async () => {
    const { cookie } = await signIn(t.tenantA.serverKey);
    const res = await http(t.baseUrl, 'GET', '/v1/links', { headers: { cookie } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'unauthorized', details: { reason: 'console_header_required' } },
    });
    expect((res.body as { error: { message: string } }).error.message).toContain('x-requested-with: console');
  });

  it("keeps the key's walls: its scopes, and its own workspace only", async () => {
    const readOnly = await issueKey({
      workspaceId: t.tenantA.workspaceId,
      kind: 'server',
      name: 'console read-only',
      scopes: ['read'],
    });
    const { res, cookie } = await signIn(readOnly.key);
    expect(res.body).toMatchObject({ data: { scopes: ['read'] } });
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(200);
    const write = await asConsole('POST', '/v1/links', cookie, {
      url: 'https://example.com/not-allowed',
      domain: t.tenantA.domain,
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: { code: 'forbidden', details: { reason: 'missing_scope' } } });

    const other = await signIn(t.tenantB.serverKey);
    const created = await asConsole('POST', '/v1/links', other.cookie, {
      url: 'https://example.com/tenant-b',
      domain: t.tenantB.domain,
    });
    expect(created.status, created.text).toBe(201);
    const linkId = (created.body as { data: { id: string } }).data.id;
    expect((await asConsole('GET', `/v1/links/${linkId}`, cookie)).status).toBe(404);
    expect((await asConsole('GET', `/v1/links/${linkId}`, other.cookie)).status).toBe(200);
  });

  it('an api-key header wins over a cookie; an unknown cookie is 401 session_ended', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/links', {
      headers: { cookie: '__Host-session=forged', ...CONSOLE, 'api-key': t.tenantA.serverKey },
    });
    expect(res.status).toBe(200);
    const forged = await asConsole('GET', '/v1/links', '__Host-session=forged');
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ error: { code: 'unauthorized', details: { reason: 'session_ended' } } });
  });
});

describe('how a session ends', () => {
  it('DELETE /v1/sessions/current: 204, the cookie cleared, and the old cookie no longer works', async () => {
    const { cookie } = await signIn(t.tenantA.serverKey);
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(200);
    const out = await asConsole('DELETE', '/v1/sessions/current', cookie);
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    const [cleared = ''] = out.headers.getSetCookie();
    expect(cleared).toMatch(/^__Host-session=;/);
    expect(cleared).toContain('Max-Age=0');
    expect(cleared).toContain('Secure');
    const after = await asConsole('GET', '/v1/links', cookie);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: { details: { reason: 'session_ended' } } });
    // Signing out again (or without a cookie) is not an error.
    expect((await asConsole('DELETE', '/v1/sessions/current', cookie)).status).toBe(204);
    expect((await http(t.baseUrl, 'DELETE', '/v1/sessions/current')).status).toBe(204);
  });

  it('after 12 hours, even before DynamoDB deletes the expired item', async () => {
    const { cookie, res } = await signIn(t.tenantA.serverKey);
    const expiresAt = Date.parse((res.body as { data: { expiresAt: string } }).data.expiresAt);
    provideServices({ clocks: { keys: () => expiresAt - 1000 } });
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(200);
    provideServices({ clocks: { keys: () => expiresAt + 1000 } });
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(401);
  });

  it('when its key is revoked', async () => {
    const key = await issueKey({ workspaceId: t.tenantA.workspaceId, kind: 'server', name: 'console revoked' });
    const { cookie } = await signIn(key.key);
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(200);
    await revokeKeyById(key.id);
    const after = await asConsole('GET', '/v1/links', cookie);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: { details: { reason: 'session_ended' } } });
  });

  it("when its key's rotation overlap ends", async () => {
    const key = await issueKey({ workspaceId: t.tenantA.workspaceId, kind: 'server', name: 'console rotated' });
    const { cookie } = await signIn(key.key);
    const rotated = await rotateKey(key.id, 60 * 60 * 1000);
    const overlapEnd = Date.parse(rotated.previousExpiresAt);
    provideServices({ clocks: { keys: () => overlapEnd - 1000 } });
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(200);
    provideServices({ clocks: { keys: () => overlapEnd + 1000 } });
    expect((await asConsole('GET', '/v1/links', cookie)).status).toBe(401);
  });
});

describe("behind the console's distribution (the origin-verify header)", () => {
  /** What the console's CloudFront adds to a /v1/* request: the origin secret and the viewer's address. */
  const viaConsole = (viewer: string, secret = (process.env[ORIGIN_VERIFY_VALUES_ENV] ?? '').split(',')[0] ?? '') => ({
    [ORIGIN_VERIFY_HEADER]: secret,
    'cloudfront-viewer-address': `${viewer}:443`,
  });

  it("counts failed sign-ins by the viewer's address, and trusts that address only with the secret", async () => {
    const windowStart = Date.parse('2034-04-04T00:00:00Z');
    provideServices({ clocks: { keys: () => windowStart + 1000 } });
    const statuses = async (headers: () => Record<string, string>, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await signIn(`sk_wrong-viewer-${String(i)}`, headers())).res.status);
      return out;
    };
    // One viewer over the limit (3 here) does not limit another viewer behind the same CloudFront.
    expect(await statuses(() => viaConsole('203.0.113.7'), 4)).toEqual([401, 401, 401, 429]);
    expect(await statuses(() => viaConsole('203.0.113.8'), 1)).toEqual([401]);
    // A wrong secret: the viewer header is not trusted and every failure counts against the TCP peer.
    let n = 0;
    expect(await statuses(() => viaConsole(`198.51.100.${String(++n)}`, 'not-the-secret'), 4)).toEqual([
      401, 401, 401, 429,
    ]);
  });

  it("records the viewer's address in the audit log for a change made through the console", async () => {
    const { cookie } = await signIn(t.tenantA.serverKey);
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { cookie, ...CONSOLE, ...viaConsole('192.0.2.44') },
      json: { url: 'https://example.com/from-the-console', domain: t.tenantA.domain },
    });
    expect(created.status, created.text).toBe(201);
    const linkId = (created.body as { data: { id: string } }).data.id;
    const audit = await asConsole('GET', `/v1/audit-log?resourceId=${linkId}`, cookie);
    expect((audit.body as { data: Array<{ ip: string | null }> }).data.map((e) => e.ip)).toEqual(['192.0.2.44']);
  });
});
