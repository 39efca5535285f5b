import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '@test/support/http-client';
import { IPHONE_UA } from '@test/reliability/route-cases';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let link: { id: string; key: string; shortLink: string };
beforeAll(async () => {
  t = await startTestStack();
  link = (await http(t.baseUrl, 'POST', '/v1/links', { headers: { 'api-key': t.tenantA.serverKey }, json: { url: 'https://example.com/r', domain: t.tenantA.domain } })).body.data;
});
afterAll(async () => t?.stop());

const ios = () => ({ 'x-ios-bundle-id': t.tenantA.publishableKeys.ios.bundleId, 'user-agent': IPHONE_UA });
const resolve = (json: unknown, headers: Record<string, string> = { 'x-publishable-key': t.tenantA.publishableKeys.ios.key }) =>
  http(t.baseUrl, 'POST', '/v1/client/resolve', { headers: { ...ios(), ...headers }, json });

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
    const both = { 'x-publishable-key': t.tenantA.publishableKeys.ios.key, authorization: `Bearer ${t.tenantA.publishableKeys.android.key}` };
    const res = await resolve({ linkId: link.id }, both);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    const same = { 'x-publishable-key': t.tenantA.publishableKeys.ios.key, authorization: `Bearer ${t.tenantA.publishableKeys.ios.key}` };
    expect((await resolve({ linkId: link.id }, same)).status).toBe(200);
  });

  it('answers 404 for a customer event naming another workspace\'s link', async () => {
    const other = (await http(t.baseUrl, 'POST', '/v1/links', { headers: { 'api-key': t.tenantB.serverKey }, json: { url: 'https://example.com/b', domain: t.tenantB.domain } })).body.data;
    const res = await http(t.baseUrl, 'POST', '/v1/client/events', {
      headers: { 'x-publishable-key': t.tenantA.publishableKeys.ios.key, ...ios() },
      json: { events: [{ name: 'ok' }, { name: 'purchase', linkId: other.id }] },
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', details: [{ path: 'events.1.linkId', message: 'no such link' }] });
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
