import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@shared/routes/route-table';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';
import { clearRateLimitCache } from '@shared/rate-limits/rate-limiter';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import {
  allKeyHeaders,
  credentialHeaders,
  makeTenantFixture,
  multipartBody,
  routeCases,
  secretsOf,
  type TenantFixture,
} from './route-cases';
import { provideServices, resetServices } from '@shared/runtime/services';

let t: TestStack;
let a: TenantFixture;
let b: TenantFixture;

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  [a, b] = await Promise.all([makeTenantFixture(t.tenantA), makeTenantFixture(t.tenantB)]);
});

const send = async (
  route: (typeof routeTable)[number],
  request: ReturnType<(typeof routeCases)[string]>,
  headers: Record<string, string>,
) => {
  if (route.api === 'edge') {
    // fetch cannot set Host; the edge is told the link's domain by it.
    const res = await edgeRequest(t.edgeUrl, {
      host: request.host ?? '127.0.0.1',
      path: request.path,
      method: request.method === 'ANY' ? 'GET' : request.method,
      headers: { ...headers, ...request.headers },
      body: request.body,
    });
    return { status: res.status, text: res.text };
  }
  const form = request.form ? multipartBody(request.form) : undefined;
  return http(t.baseUrl, request.method, request.path, {
    headers: { ...headers, ...request.headers, ...(form ? { 'content-type': form.contentType } : {}) },
    json: request.json,
    body: form?.body ?? request.body,
  });
};

/** Edge requests go to the other tenant's host: A's key must mean nothing there. */
const onOtherHost = (request: ReturnType<(typeof routeCases)[string]>) =>
  request.host
    ? { ...request, host: request.host === a.shortLink.domain ? b.shortLink.domain : b.deepLink.domain }
    : request;

describe('tenant walls', () => {
  it('has a case for every route in the route table', () => {
    const missing = routeTable.map((r) => r.handler).filter((h) => !routeCases[h]);
    expect(missing, `routes without a tenant-wall case: ${missing.join(', ')}`).toEqual([]);
  });

  for (const route of routeTable) {
    const label = `${route.method} ${route.path} (${route.handler})`;

    if (route.api === 'edge' && route.path !== '$default') {
      it(`${label}: on its own host, tenant A's link answers (the case reaches the route)`, async () => {
        const res = await send(route, routeCases[route.handler]!(a, route), {});
        expect(res.status, res.text.slice(0, 200)).not.toBe(404);
      });
    }

    it(`${label}: tenant B's key on tenant A's ids never returns A's data`, async () => {
      const request = onOtherHost(routeCases[route.handler]!(a, route));
      const res = await send(route, request, credentialHeaders(route.credential, b.tenant));
      expect(res.status).toBeLessThan(500);
      for (const secret of secretsOf(a)) expect(res.text, `${label} leaked ${secret}`).not.toContain(secret);
      if (/\{(linkId|domainId|key)\}/.test(route.path)) expect(res.status).toBe(404);
    });

    if (route.credential !== 'none') {
      it(`${label}: every key of another kind is refused without data`, async () => {
        const request = routeCases[route.handler]!(a, route);
        const wanted = credentialHeaders(route.credential, a.tenant);
        for (const { kind, headers } of allKeyHeaders(a.tenant)) {
          if (JSON.stringify(headers) === JSON.stringify(wanted)) continue;
          const res = await send(route, request, headers);
          expect([400, 401, 403, 404], `${label} with ${kind}: ${res.status}`).toContain(res.status);
          for (const secret of secretsOf(a))
            expect(res.text, `${label} with ${kind} leaked ${secret}`).not.toContain(secret);
        }
        const none = await send(route, request, {});
        expect([400, 401, 404], `${label} without a key`).toContain(none.status);
      });
    }
  }
});

/**
 * Rate limits are walls too: tenant B used up every budget (limit 1 a minute, the clock pinned
 * inside one window); on every limited route B is 429 and A's same request is not.
 */
describe('rate limits are per workspace', () => {
  const limited = routeTable.filter((r) => rateLimitKindOf(r.credential));
  beforeAll(async () => {
    provideServices({ clocks: { rateLimit: () => Date.UTC(2026, 10, 23, 12, 0, 5) } });
    await workspaceRepository.setRateLimits(b.tenant.workspaceId, {
      serverPerMinute: 1,
      clientPerMinute: 1,
      legacyPerMinute: 1,
    });
    clearRateLimitCache();
  });
  afterAll(() => {
    resetServices('clocks');
  });

  it('covers every route with a credential', () => {
    expect(limited.map((r) => r.handler).sort()).toEqual(
      routeTable
        .filter((r) => r.credential !== 'none')
        .map((r) => r.handler)
        .sort(),
    );
  });

  for (const route of limited) {
    it(`${route.method} ${route.path} (${route.handler}): tenant B over its limit is 429, tenant A is not`, async () => {
      let res = await send(route, routeCases[route.handler]!(b, route), credentialHeaders(route.credential, b.tenant));
      for (let i = 0; i < 2 && res.status !== 429; i++)
        res = await send(route, routeCases[route.handler]!(b, route), credentialHeaders(route.credential, b.tenant));
      expect(res.status, res.text.slice(0, 200)).toBe(429);
      for (const secret of secretsOf(a)) expect(res.text).not.toContain(secret);
      const own = await send(
        route,
        routeCases[route.handler]!(a, route),
        credentialHeaders(route.credential, a.tenant),
      );
      expect(own.status, own.text.slice(0, 200)).not.toBe(429);
      expect(own.status).toBeLessThan(500);
    });
  }
});
