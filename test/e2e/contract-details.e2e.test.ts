import { beforeAll, describe, expect, it } from 'vitest';
import * as z from '@shared/schemas/zod-mini';
import { http } from '@test/support/http-client';
import { IPHONE_UA } from '@test/reliability/route-cases';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let link: { id: string; key: string; shortLink: string };
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  link = (
    await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/r', domain: t.tenantA.domain },
    })
  ).body.data;
});

const ios = () => ({ 'x-ios-bundle-id': t.tenantA.publishableKeys.ios.bundleId, 'user-agent': IPHONE_UA });
const resolve = (
  json: unknown,
  headers: Record<string, string> = { 'x-publishable-key': t.tenantA.publishableKeys.ios.key },
) => http(t.baseUrl, 'POST', '/v1/client/resolve', { headers: { ...ios(), ...headers }, json });

describe('client link references and keys', () => {
  it('accepts aliases that agree and refuses ones that differ (400 naming the alias), as the v1 link routes do', async () => {
    expect((await resolve({ shortLink: link.shortLink, url: link.shortLink })).status).toBe(200);
    expect((await resolve({ domain: t.tenantA.domain, key: link.key, slug: link.key })).status).toBe(200);
    const urls = await resolve({ shortLink: link.shortLink, url: `https://${t.tenantA.domain}/other` });
    expect(urls.status).toBe(400);
    expect(urls.body.error.details).toEqual([{ path: 'url', message: 'differs from shortLink' }]);
    const keys = await resolve({ domain: t.tenantA.domain, key: link.key, slug: 'other' });
    expect(keys.status).toBe(400);
    expect(keys.body.error.details).toEqual([{ path: 'slug', message: 'differs from key' }]);
  });

  it('refuses two different publishable keys in one request (401) and accepts the same key twice', async () => {
    const both = {
      'x-publishable-key': t.tenantA.publishableKeys.ios.key,
      authorization: `Bearer ${t.tenantA.publishableKeys.android.key}`,
    };
    const res = await resolve({ linkId: link.id }, both);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    const same = {
      'x-publishable-key': t.tenantA.publishableKeys.ios.key,
      authorization: `Bearer ${t.tenantA.publishableKeys.ios.key}`,
    };
    expect((await resolve({ linkId: link.id }, same)).status).toBe(200);
  });

  it("answers 404 for a customer event naming another workspace's link", async () => {
    const other = (
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: { 'api-key': t.tenantB.serverKey },
        json: { url: 'https://example.com/b', domain: t.tenantB.domain },
      })
    ).body.data;
    const res = await http(t.baseUrl, 'POST', '/v1/client/events', {
      headers: { 'x-publishable-key': t.tenantA.publishableKeys.ios.key, ...ios() },
      json: { events: [{ name: 'ok' }, { name: 'purchase', linkId: other.id }] },
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'not_found',
      details: [{ path: 'events.1.linkId', message: 'no such link' }],
    });
    expect(res.text).not.toContain(other.shortLink);
  });
});

describe('empty cursor', () => {
  it('is the first page on lists and on the raw export, not an invalid cursor', async () => {
    const headers = { 'api-key': t.tenantA.serverKey };
    const first = await http(t.baseUrl, 'GET', '/v1/links?limit=1', { headers });
    const empty = await http(t.baseUrl, 'GET', '/v1/links?limit=1&cursor=', { headers });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(first.body.data);
    expect((await http(t.baseUrl, 'GET', '/v1/domains?cursor=', { headers })).status).toBe(200);
    expect((await http(t.baseUrl, 'GET', '/v1/analytics/events?cursor=&range=24h', { headers })).status).toBe(200);
    expect((await http(t.baseUrl, 'GET', '/v1/links?cursor=x', { headers })).body.error.code).toBe('invalid_cursor');
  });
});

describe('client and analytics responses match the documented analytics and client structures', () => {
  it('every client route and analytics route answers data that parses with its OpenAPI response schema', async () => {
    const { routeSchemas } = await import('@shared/openapi/route-schemas');
    const deep = (
      await http(t.baseUrl, 'POST', '/v1/deep-links', {
        headers: { 'api-key': t.tenantA.serverKey },
        json: { appId: t.tenantA.deepLinkApp.id },
      })
    ).body.data;
    const client = { 'x-publishable-key': t.tenantA.publishableKeys.ios.key, ...ios() };
    const server = { 'api-key': t.tenantA.serverKey };
    const calls: Array<[string, Promise<{ status: number; body: any }>]> = [
      ['client-resolve', http(t.baseUrl, 'POST', '/v1/client/resolve', { headers: client, json: { linkId: deep.id } })],
      [
        'client-click',
        http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
          headers: client,
          json: { shortLink: deep.shortLink },
        }),
      ],
    ];
    for (const [, call] of calls) expect((await call).status).toBeLessThan(300);
    calls.push(
      [
        'client-deferred-deep-link',
        http(t.baseUrl, 'POST', '/v1/client/deferred-deep-link', {
          headers: client,
          json: { installId: 'i-contract' },
        }),
      ],
      [
        'client-first-open',
        http(t.baseUrl, 'POST', '/v1/client/first-open', {
          headers: client,
          json: { installId: 'i-contract', eventType: 'install' },
        }),
      ],
      [
        'client-events',
        http(t.baseUrl, 'POST', '/v1/client/events', { headers: client, json: { events: [{ name: 'signup' }] } }),
      ],
      [
        'analytics-link',
        http(t.baseUrl, 'GET', `/v1/analytics/links/${deep.id}?range=24h&traffic=all`, { headers: server }),
      ],
      [
        'analytics-deep-link-app',
        http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app?range=24h', {
          headers: { 'api-key': t.tenantA.deepLinkApp.appKey },
        }),
      ],
      ['analytics-events', http(t.baseUrl, 'GET', '/v1/analytics/events?range=24h', { headers: server })],
    );
    for (const [handler, call] of calls) {
      const res = await call;
      expect(res.status, `${handler}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(300);
      const response = routeSchemas[handler]!.response!;
      const items = response.list ? res.body.data : [res.body.data];
      if (response.list) {
        expect(res.body.pagination).toMatchObject({ limit: expect.any(Number), hasMore: expect.any(Boolean) });
        expect(items.length).toBeGreaterThan(0);
      }
      for (const item of items) {
        const parsed = z.safeParse(response.schema, item);
        expect(parsed.success, `${handler}: ${JSON.stringify(parsed.error)}`).toBe(true);
      }
    }
  });
});
