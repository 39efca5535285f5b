import { writeTestArtifact } from '@test/support/test-artifacts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { clearRateLimitCache } from '@shared/rate-limits/rate-limiter';
import { runAdminFailing, runAdminJson } from '@test/support/admin-cli';
import { http, type HttpResponse } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA, multipartBody } from './route-cases';
import { provideServices, resetServices } from '@shared/runtime/services';

/** 20 s into a UTC minute: every request of this file falls in one fixed window. */
const PINNED = Date.UTC(2026, 10, 23, 12, 0, 20);

let t: TestStack;
let c: BootstrapResult;
let link: { id: string; shortLink: string };
const tally = {
  requestsSent: 0,
  requestsLimited: 0,
  byBudget: {} as Record<string, { sent: number; limited: number }>,
};

beforeAll(async () => {
  provideServices({ clocks: { rateLimit: () => PINNED } });
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  c = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Limited' });
  const created = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: { 'api-key': t.tenantA.serverKey },
    json: { url: 'https://example.com/rl', domain: t.tenantA.domain },
  });
  link = created.body.data;
});
afterAll(() => {
  resetServices('clocks');
  writeTestArtifact('rate-limits-report.json', tally);
});

const count = (budget: string, res: HttpResponse) => {
  tally.requestsSent++;
  const b = (tally.byBudget[budget] ??= { sent: 0, limited: 0 });
  b.sent++;
  if (res.status === 429) {
    tally.requestsLimited++;
    b.limited++;
  }
  return res;
};

const serverGet = async (tenant: BootstrapResult) =>
  count('server', await http(t.baseUrl, 'GET', '/v1/links?limit=1', { headers: { 'api-key': tenant.serverKey } }));
const clientPost = async (tenant: BootstrapResult) =>
  count(
    'client',
    await http(t.baseUrl, 'POST', '/v1/client/resolve', {
      headers: {
        'x-publishable-key': tenant.publishableKeys.browser.key,
        origin: tenant.publishableKeys.browser.origin,
        'user-agent': IPHONE_UA,
      },
      json: { linkId: 'lnk_none' },
    }),
  );
const legacyGet = async (tenant: BootstrapResult) =>
  count(
    'legacy',
    await http(t.baseUrl, 'GET', `/api/mobile/link?shortLink=${encodeURIComponent(`https://${tenant.domain}/nope`)}`, {
      headers: { 'api-key': tenant.mobileKey },
    }),
  );

const policy = (res: HttpResponse) => ({
  policy: res.headers.get('ratelimit-policy'),
  state: res.headers.get('ratelimit'),
  retryAfter: res.headers.get('retry-after'),
});

describe('per-workspace rate limits', () => {
  it('admin set-rate-limits validates its input and show-workspace shows set and default limits', async () => {
    const before = await runAdminJson(['show-workspace', c.workspaceId]);
    expect(before.rateLimits).toEqual({
      serverPerMinute: { perMinute: 3000, source: 'default' },
      clientPerMinute: { perMinute: 30000, source: 'default' },
      legacyPerMinute: { perMinute: 3000, source: 'default' },
    });
    for (const bad of ['0', '1000001']) {
      const failed = await runAdminFailing(['set-rate-limits', c.workspaceId, '--server-per-minute', bad]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/--server-per-minute must be a whole number from 1 to 1,000,000/);
    }
    expect((await runAdminFailing(['set-rate-limits', c.workspaceId])).stderr).toMatch(/Give at least one of/);
    expect((await runAdminFailing(['set-rate-limits', 'ws_missing', '--server-per-minute', '5'])).stderr).toMatch(
      /No workspace ws_missing/,
    );
    const set = await runAdminJson([
      'set-rate-limits',
      c.workspaceId,
      '--server-per-minute',
      '3',
      '--client-per-minute',
      '4',
    ]);
    expect(set.rateLimits.serverPerMinute).toEqual({ perMinute: 3, source: 'workspace' });
    const setLegacy = await runAdminJson(['set-rate-limits', c.workspaceId, '--legacy-per-minute', '2']);
    expect(setLegacy.rateLimits).toEqual({
      serverPerMinute: { perMinute: 3, source: 'workspace' },
      clientPerMinute: { perMinute: 4, source: 'workspace' },
      legacyPerMinute: { perMinute: 2, source: 'workspace' },
    });
    expect((await runAdminJson(['show-workspace', c.workspaceId])).rateLimits).toEqual(setLegacy.rateLimits);
    clearRateLimitCache();
  });

  it('server-key routes: headers on every answer, then 429 rate_limited in the v1 envelope with Retry-After; other workspaces unaffected', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await serverGet(c);
      expect(ok.status).toBe(200);
      expect(policy(ok)).toEqual({ policy: '"server";q=3;w=60', state: `"server";r=${2 - i};t=40`, retryAfter: null });
    }
    const limited = await serverGet(c);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      success: false,
      error: {
        code: 'rate_limited',
        message: expect.stringMatching(/3 requests per minute .* server-key routes; retry after 40 seconds/),
        details: { limit: 3, windowSeconds: 60, retryAfterSeconds: 40 },
      },
      requestId: limited.headers.get('x-request-id'),
    });
    expect(policy(limited)).toEqual({ policy: '"server";q=3;w=60', state: '"server";r=0;t=40', retryAfter: '40' });
    // A refused POST writes nothing and is refused before its body is read.
    const create = count(
      'server',
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: { 'api-key': c.serverKey },
        json: { url: 'https://example.com/x', domain: c.domain },
      }),
    );
    expect(create.status).toBe(429);
    // Another workspace, same route, same window: its own budget.
    const other = await serverGet(t.tenantA);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-policy')).toBe('"server";q=3000;w=60');
    // The other budgets of the same workspace are separate.
    expect((await clientPost(c)).status).not.toBe(429);
  });

  it('publishable-key client routes: their own budget, 429 in the v1 envelope, headers exposed to the browser', async () => {
    for (let i = 1; i < 4; i++) expect((await clientPost(c)).status).not.toBe(429);
    const limited = await clientPost(c);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      success: false,
      error: { code: 'rate_limited' },
      requestId: limited.headers.get('x-request-id'),
    });
    expect(policy(limited)).toEqual({ policy: '"client";q=4;w=60', state: '"client";r=0;t=40', retryAfter: '40' });
    expect(limited.headers.get('access-control-allow-origin')).toBe(c.publishableKeys.browser.origin);
    expect(limited.headers.get('access-control-expose-headers')).toMatch(/RateLimit, RateLimit-Policy, Retry-After/);
    expect((await clientPost(t.tenantA)).status).not.toBe(429);
  });

  it('legacy routes: 429 in the legacy shape with Retry-After', async () => {
    for (let i = 0; i < 2; i++) {
      const ok = await legacyGet(c);
      expect(ok.status).toBe(404);
      expect(ok.headers.get('ratelimit')).toBe(`"legacy";r=${1 - i};t=40`);
    }
    const limited = await legacyGet(c);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      success: false,
      msg: expect.stringMatching(/^Rate limit exceeded: 2 requests per minute/),
    });
    expect(policy(limited)).toEqual({ policy: '"legacy";q=2;w=60', state: '"legacy";r=0;t=40', retryAfter: '40' });
    const { body, contentType } = multipartBody({ url: 'https://example.com/legacy' });
    const create = count(
      'legacy',
      await http(t.baseUrl, 'POST', '/api/mobile/link/create', {
        headers: { 'api-key': c.mobileKey, 'content-type': contentType },
        body,
      }),
    );
    expect(create.status).toBe(429);
    expect((await legacyGet(t.tenantA)).status).toBe(404);
  });

  it('a new window starts a new count; raising the limit applies once the cached limits expire', async () => {
    provideServices({ clocks: { rateLimit: () => PINNED + 60_000 } });
    const next = await serverGet(c);
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit')).toBe('"server";r=2;t=40');
    await runAdminJson(['set-rate-limits', c.workspaceId, '--server-per-minute', '1000000']);
    clearRateLimitCache();
    const raised = await serverGet(c);
    expect(raised.status).toBe(200);
    expect(raised.headers.get('ratelimit-policy')).toBe('"server";q=1000000;w=60');
    provideServices({ clocks: { rateLimit: () => PINNED } });
  });

  it('routes without a credential (OpenAPI, preflight, the edge) carry no rate-limit headers', async () => {
    const doc = await http(t.baseUrl, 'GET', '/v1/openapi.json');
    expect(doc.headers.get('ratelimit')).toBeNull();
    const pre = await http(t.baseUrl, 'OPTIONS', '/v1/client/resolve', {
      headers: { origin: c.publishableKeys.browser.origin, 'access-control-request-method': 'POST' },
    });
    expect(pre.headers.get('ratelimit')).toBeNull();
    expect(link.id).toBeTruthy();
  });
});
