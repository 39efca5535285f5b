import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const server = (key = t.tenantA.serverKey) => ({ 'api-key': key });

describe('/v1/deep-links', () => {
  it("creates on the app domain with the app default URL; appId alias; 400 without an app, 404 for another's app", async () => {
    const res = await http(t.baseUrl, 'POST', '/v1/deep-links', {
      headers: server(),
      json: { appId: t.tenantA.deepLinkApp.id, tags: ['App'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      linkType: 'DEEPLINK',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
      domain: t.tenantA.deepLinkApp.domain,
      url: t.tenantA.deepLinkApp.defaultUrl,
    });
    const none = await http(t.baseUrl, 'POST', '/v1/deep-links', { headers: server(), json: { url: 'https://a.com' } });
    expect(none.status).toBe(400);
    expect(none.body.error.details[0].path).toBe('deepLinkAppId');
    const foreign = await http(t.baseUrl, 'POST', '/v1/deep-links', {
      headers: server(),
      json: { deepLinkAppId: t.tenantB.deepLinkApp.id },
    });
    expect(foreign.status).toBe(404);
  });

  it('get / patch / archive / list serve only deep links; /v1/links never serves a deep link and vice versa', async () => {
    const deep = (
      await http(t.baseUrl, 'POST', '/v1/deep-links', {
        headers: server(),
        json: { deepLinkAppId: t.tenantA.deepLinkApp.id, key: 'dl-1' },
      })
    ).body.data;
    const short = (
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: server(),
        json: { url: 'https://a.com', domain: t.tenantA.domain },
      })
    ).body.data;
    expect((await http(t.baseUrl, 'GET', `/v1/deep-links/${deep.id}`, { headers: server() })).body.data).toEqual(deep);
    for (const [method, json] of [['GET'], ['PATCH', { title: 'x' }], ['DELETE']] as const) {
      expect((await http(t.baseUrl, method, `/v1/links/${deep.id}`, { headers: server(), json })).status).toBe(404);
      expect((await http(t.baseUrl, method, `/v1/deep-links/${short.id}`, { headers: server(), json })).status).toBe(
        404,
      );
    }
    const patched = await http(t.baseUrl, 'PATCH', `/v1/deep-links/${deep.id}`, {
      headers: server(),
      json: { key: 'dl-2', url: 'https://www.example.com/p' },
    });
    expect(patched.body.data).toMatchObject({
      key: 'dl-2',
      url: 'https://www.example.com/p',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
    const moveDomain = await http(t.baseUrl, 'PATCH', `/v1/deep-links/${deep.id}`, {
      headers: server(),
      json: { domain: t.tenantA.domain },
    });
    expect(moveDomain.status).toBe(400);
    expect(moveDomain.body.error.details[0].path).toBe('domain');

    const listed = await http(t.baseUrl, 'GET', '/v1/deep-links?limit=100', { headers: server() });
    const ids = listed.body.data.map((l: { id: string }) => l.id);
    expect(ids).toContain(deep.id);
    expect(ids).not.toContain(short.id);
    expect(listed.body.data.every((l: { linkType: string }) => l.linkType === 'DEEPLINK')).toBe(true);
    const shortIds = (await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: server() })).body.data.map(
      (l: { id: string }) => l.id,
    );
    expect(shortIds).toContain(short.id);
    expect(shortIds).not.toContain(deep.id);

    const archived = await http(t.baseUrl, 'DELETE', `/v1/deep-links/${deep.id}`, { headers: server() });
    expect(archived.body.data).toMatchObject({
      archived: true,
      deepLinkAppId: t.tenantA.deepLinkApp.id,
      domain: t.tenantA.deepLinkApp.domain,
    });
    const archivedList = await http(
      t.baseUrl,
      'GET',
      `/v1/deep-links?archived=true&domain=${t.tenantA.deepLinkApp.domain}`,
      { headers: server() },
    );
    expect(archivedList.body.data.map((l: { id: string }) => l.id)).toEqual([deep.id]);
  });
});

describe('/v1/domains', () => {
  const fields = [
    'id',
    'domain',
    'verified',
    'placeholder',
    'expiredUrl',
    'notFoundUrl',
    'primary',
    'archived',
    'createdAt',
    'updatedAt',
  ];

  it("lists the workspace's domains with exactly the Domain fields, and gets one", async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/domains', { headers: server() });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 25, nextCursor: null, hasMore: false });
    expect(res.body.data.map((d: { domain: string }) => d.domain).sort()).toEqual(
      [t.tenantA.domain, t.tenantA.deepLinkApp.domain].sort(),
    );
    for (const d of res.body.data) expect(Object.keys(d).sort()).toEqual(fields.slice().sort());
    const one = await http(t.baseUrl, 'GET', `/v1/domains/${t.tenantA.domainId}`, { headers: server() });
    expect(one.body.data).toMatchObject({
      id: t.tenantA.domainId,
      domain: t.tenantA.domain,
      verified: true,
      primary: true,
      archived: false,
    });
    expect(Object.keys(one.body.data).sort()).toEqual(fields.slice().sort());
  });

  it('pages, searches, filters and sorts', async () => {
    const first = await http(t.baseUrl, 'GET', '/v1/domains?limit=1&sort=created_at_asc', { headers: server() });
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await http(
      t.baseUrl,
      'GET',
      `/v1/domains?limit=1&sort=created_at_asc&cursor=${first.body.pagination.nextCursor}`,
      { headers: server() },
    );
    expect(second.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const all = await http(t.baseUrl, 'GET', '/v1/domains?sort=created_at_asc', { headers: server() });
    expect([first.body.data[0].id, second.body.data[0].id]).toEqual(all.body.data.map((d: { id: string }) => d.id));
    const desc = await http(t.baseUrl, 'GET', '/v1/domains?sort=created_at_desc', { headers: server() });
    expect(desc.body.data.map((d: { id: string }) => d.id)).toEqual(
      all.body.data.map((d: { id: string }) => d.id).reverse(),
    );
    const bad = await http(
      t.baseUrl,
      'GET',
      `/v1/domains?limit=1&sort=updated_at_asc&cursor=${first.body.pagination.nextCursor}`,
      { headers: server() },
    );
    expect(bad.body.error.code).toBe('invalid_cursor');
    const search = await http(t.baseUrl, 'GET', `/v1/domains?search=${t.tenantA.domain.slice(0, 10).toUpperCase()}`, {
      headers: server(),
    });
    expect(search.body.data.map((d: { id: string }) => d.id)).toEqual([t.tenantA.domainId]);
    const exact = await http(t.baseUrl, 'GET', `/v1/domains?domain=${t.tenantA.deepLinkApp.domain}`, {
      headers: server(),
    });
    expect(exact.body.data).toHaveLength(1);
    expect((await http(t.baseUrl, 'GET', '/v1/domains?archived=true', { headers: server() })).body.data).toEqual([]);
    expect((await http(t.baseUrl, 'GET', '/v1/domains?sort=clicks_desc', { headers: server() })).status).toBe(400);
  });
});
