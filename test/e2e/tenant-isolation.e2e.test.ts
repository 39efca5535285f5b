import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let link: { id: string; key: string };
let deep: { id: string };
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const a = { 'api-key': t.tenantA.serverKey };
  link = (
    await http(t.baseUrl, 'POST', '/v1/links', {
      headers: a,
      json: { url: 'https://a.com', domain: t.tenantA.domain, tags: ['Shared-Name'] },
    })
  ).body.data;
  deep = (
    await http(t.baseUrl, 'POST', '/v1/deep-links', { headers: a, json: { deepLinkAppId: t.tenantA.deepLinkApp.id } })
  ).body.data;
});

const asB = (method: string, path: string, json?: unknown) =>
  http(t.baseUrl, method, path, { headers: { 'api-key': t.tenantB.serverKey }, json });

describe("tenant isolation: tenant B never reaches tenant A's records", () => {
  it('404 on every item route of links, deep links and domains', async () => {
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/v1/links/${link.id}`],
      ['PATCH', `/v1/links/${link.id}`, { title: 'hijack' }],
      ['PATCH', `/v1/links/${link.id}`, { archived: true }],
      ['DELETE', `/v1/links/${link.id}`],
      ['GET', `/v1/deep-links/${deep.id}`],
      ['PATCH', `/v1/deep-links/${deep.id}`, { title: 'hijack' }],
      ['DELETE', `/v1/deep-links/${deep.id}`],
      ['GET', `/v1/domains/${t.tenantA.domainId}`],
    ];
    for (const [method, path, json] of attempts) {
      const res = await asB(method, path, json);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const stillA = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(stillA.body.data).toEqual(link);
    const deepA = await http(t.baseUrl, 'GET', `/v1/deep-links/${deep.id}`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(deepA.body.data.archived).toBe(false);
  });

  it("lists never include the other workspace's records, whatever the filter or sort", async () => {
    for (const path of [
      '/v1/links?limit=100',
      '/v1/links?limit=100&sort=clicks_desc',
      '/v1/links?limit=100&sort=updated_at_asc',
      '/v1/links?limit=100&tag=shared-name',
      `/v1/links?limit=100&search=${link.key}`,
      `/v1/links?limit=100&domain=${t.tenantA.domain}`,
      '/v1/deep-links?limit=100',
      `/v1/deep-links?limit=100&domain=${t.tenantA.deepLinkApp.domain}`,
      '/v1/links?limit=100&archived=true',
    ]) {
      const res = await asB('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body.data, path).toEqual([]);
    }
    const domains = await asB('GET', '/v1/domains?limit=100');
    expect(domains.body.data.map((d: { domain: string }) => d.domain).sort()).toEqual(
      [t.tenantB.domain, t.tenantB.deepLinkApp.domain].sort(),
    );
    expect((await asB('GET', `/v1/domains?domain=${t.tenantA.domain}`)).body.data).toEqual([]);
  });

  it("B cannot move its link onto A's domain nor create on A's app", async () => {
    const mine = (await asB('POST', '/v1/links', { url: 'https://b.com', domain: t.tenantB.domain })).body.data;
    expect((await asB('PATCH', `/v1/links/${mine.id}`, { domain: t.tenantA.domain })).status).toBe(400);
    expect((await asB('POST', '/v1/deep-links', { deepLinkAppId: t.tenantA.deepLinkApp.id })).status).toBe(404);
  });
});
