import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { linkRepository } from '@shared/links/link-repository';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const server = (key = t.tenantA.serverKey, extra: Record<string, string> = {}) => ({ 'api-key': key, ...extra });

describe('POST /v1/links and GET /v1/links/{linkId} over HTTP', () => {
  it('creates a link with a generated 7-character key and returns the full Link resource', async () => {
    const res = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'x-request-id': 'my-req-1' }),
      json: {
        destinationUrl: 'https://example.com/page',
        domain: t.tenantA.domain.toUpperCase(),
        tags: ['News'],
        password: 'pw',
        objects: {},
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('my-req-1');
    expect(res.body.requestId).toBe('my-req-1');
    const link = res.body.data;
    expect(link.key).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(link).toMatchObject({
      url: 'https://example.com/page',
      domain: t.tenantA.domain,
      shortLink: localShortLink(t.edgeUrl, t.tenantA.domain, link.key),
      title: localShortLink(t.edgeUrl, t.tenantA.domain, link.key),
      passwordProtected: true,
      clicks: 0,
      botClicks: 0,
      lastClicked: null,
      lastBotClickedAt: null,
      linkType: 'SHORTLINK',
      archived: false,
      deepLinkAppId: null,
      objects: null,
      expiresAt: null,
      comments: null,
    });
    expect(link.tags).toEqual([{ id: expect.stringMatching(/^tag_/), name: 'News', color: expect.any(String) }]);
    expect(JSON.stringify(res.body)).not.toMatch(/scrypt|"password"/);
    expect(Object.keys(link).sort()).toEqual(
      [
        'id',
        'title',
        'url',
        'desktopOverrideUrl',
        'androidOverrideUrl',
        'iosOverrideUrl',
        'domain',
        'key',
        'shortLink',
        'expiresAt',
        'expiredUrl',
        'passwordProtected',
        'clicks',
        'botClicks',
        'lastClicked',
        'lastBotClickedAt',
        'comments',
        'createdAt',
        'updatedAt',
        'linkType',
        'archived',
        'deepLinkAppId',
        'objects',
        'tags',
        'tracking',
        'socialPreview',
        'geo',
        'rules',
        'variants',
        'trackConversions',
      ].sort(),
    );

    const got = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(link);
    expect(got.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.headers.get('x-request-id')).toBe(got.body.requestId);
  });

  it('keeps a custom key (alias slug) and answers 409 slug_taken for the same domain+key', async () => {
    const body = {
      url: 'https://example.com',
      domain: t.tenantA.domain,
      slug: 'promo-1',
      comments: 'note',
      expiresAt: '2031-01-01T00:00:00+02:00',
    };
    const first = await http(t.baseUrl, 'POST', '/v1/links', { headers: server(), json: body });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ key: 'promo-1', comments: 'note', expiresAt: '2030-12-31T22:00:00.000Z' });
    const again = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { ...body, url: 'https://other.com' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: { code: 'slug_taken' } });
  });

  it("refuses a domain that is not the workspace's (400 naming domain)", async () => {
    const res = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://a.com', domain: t.tenantB.domain },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toEqual([{ path: 'domain', message: expect.any(String) }]);
  });

  it('answers 415 for a non-JSON body, 400 invalid_json for broken JSON, 400 invalid_request for bad fields', async () => {
    const asText = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { ...server(), 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(asText.status).toBe(415);
    expect(asText.body.error.code).toBe('unsupported_media_type');
    const broken = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { ...server(), 'content-type': 'application/json' },
      body: '{"url":',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
    const bad = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'javascript:alert(1)', domain: t.tenantA.domain, key: '.bad' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['key', 'url']);
  });

  it("does not show another workspace's link (404) and needs a valid server key", async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://a.com', domain: t.tenantA.domain },
    });
    const id = created.body.data.id;
    expect((await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: server(t.tenantB.serverKey) })).status).toBe(
      404,
    );
    expect((await http(t.baseUrl, 'GET', '/v1/links/lnk_nope', { headers: server() })).body.error.code).toBe(
      'not_found',
    );

    const missing = await http(t.baseUrl, 'GET', `/v1/links/${id}`);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    expect((await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: server('sk_unknown') })).status).toBe(401);
    for (const wrongKind of [
      t.tenantA.mobileKey,
      t.tenantA.deepLinkApp.appKey,
      t.tenantA.publishableKeys.browser.key,
    ]) {
      const res = await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: server(wrongKind) });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('answers 401 for a revoked key', async () => {
    const { bootstrapTenant } = await import('@shared/admin/bootstrap');
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    expect((await http(t.baseUrl, 'GET', '/v1/links/x', { headers: server(tenant.serverKey) })).status).toBe(404);
    await apiKeyRepository.revoke(hashApiKey(tenant.serverKey));
    expect((await http(t.baseUrl, 'GET', '/v1/links/x', { headers: server(tenant.serverKey) })).status).toBe(401);
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const record = await apiKeyRepository.findByHash(hashApiKey(t.tenantA.serverKey));
    expect(record).toMatchObject({ kind: 'server', workspaceId: t.tenantA.workspaceId, revoked: false });
    expect(JSON.stringify(record)).not.toContain(t.tenantA.serverKey);
  });

  it('answers an unknown route with 404 not_found in the envelope', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'not_found' }, requestId: expect.any(String) });
  });
});

describe('Idempotency-Key on POST /v1/links', () => {
  const body = () => ({ url: 'https://example.com/idem', domain: t.tenantA.domain });

  it('replays the stored response for the same key and body, 409 for a different body', async () => {
    const key = `idem-${Math.random()}`;
    const first = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': key }),
      json: body(),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': key }),
      json: { domain: t.tenantA.domain, url: 'https://example.com/idem' },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    expect(replay.body.requestId).toBe(replay.headers.get('x-request-id'));
    const reused = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': key }),
      json: { ...body(), title: 'different' },
    });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    // The same key is a different key in another workspace.
    const other = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(t.tenantB.serverKey, { 'idempotency-key': key }),
      json: { url: 'https://example.com/idem', domain: t.tenantB.domain },
    });
    expect(other.status).toBe(201);
    expect(other.body.data.id).not.toBe(first.body.data.id);
  });

  it('does not store failed requests: a corrected retry with the same key succeeds', async () => {
    const key = `idem-fail-${Math.random()}`;
    const taken = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { ...body(), key: `k${Date.now()}` },
    });
    const clash = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': key }),
      json: { ...body(), key: taken.body.data.key },
    });
    expect(clash.status).toBe(409);
    const retry = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': key }),
      json: { ...body(), key: taken.body.data.key },
    });
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('slug_taken');
    const tooLong = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(undefined, { 'idempotency-key': 'x'.repeat(256) }),
      json: body(),
    });
    expect(tooLong.status).toBe(400);
  });

  it('runs concurrent requests with one key once: one link, the rest replay or 409 in progress', async () => {
    const key = `idem-race-${Math.random()}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        http(t.baseUrl, 'POST', '/v1/links', { headers: server(undefined, { 'idempotency-key': key }), json: body() }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const inProgress = results.filter((r) => r.status === 409);
    expect(created.length + inProgress.length).toBe(10);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of inProgress) expect(r.body.error.code).toBe('idempotency_request_in_progress');
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true').length).toBe(1);
    const stored = await linkRepository.findById(created[0]!.body.data.id, true);
    expect(stored?.url).toBe('https://example.com/idem');
  });
});
