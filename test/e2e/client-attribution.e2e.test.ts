import { beforeAll, describe, expect, it } from 'vitest';
import { rawPartitionPath, shardOf } from '@shared/analytics/lake/lake-layout';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { eventRecordSchema } from '@shared/events/event-record-schema';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const ANDROID = 'Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UD1A.230803.041)';
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let t: TestStack;
let link: { id: string; domain: string; key: string; url: string; shortLink: string };
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const created = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: { 'api-key': t.tenantA.serverKey },
    json: { url: 'https://example.com/offer', domain: t.tenantA.domain },
  });
  link = created.body.data;
});

/** Headers of a well-behaved client of each key of tenant A. */
const browser = (extra: Record<string, string> = {}) => ({
  'x-publishable-key': t.tenantA.publishableKeys.browser.key,
  origin: t.tenantA.publishableKeys.browser.origin,
  'user-agent': IPHONE,
  ...extra,
});
const android = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${t.tenantA.publishableKeys.android.key}`,
  'x-android-package': t.tenantA.publishableKeys.android.package,
  'x-android-sha256-cert': t.tenantA.publishableKeys.android.sha256Cert,
  'x-service-platform': 'android',
  'x-service-environment': 'production',
  'user-agent': ANDROID,
  ...extra,
});
const ios = (extra: Record<string, string> = {}) => ({
  'x-publishable-key': t.tenantA.publishableKeys.ios.key,
  'x-ios-bundle-id': t.tenantA.publishableKeys.ios.bundleId,
  'user-agent': IPHONE,
  ...extra,
});
const post = (path: string, headers: Record<string, string>, json: unknown = { linkId: link.id }) =>
  http(t.baseUrl, 'POST', path, { headers, json });

describe('publishable-key auth on /v1/client/*', () => {
  it('accepts x-publishable-key and Authorization: Bearer', async () => {
    expect((await post('/v1/client/resolve', browser())).status).toBe(200);
    expect((await post('/v1/client/resolve', android())).status).toBe(200);
    expect((await post('/v1/client/resolve', ios())).status).toBe(200);
  });

  it('answers 401 for a missing, unknown or revoked key', async () => {
    const missing = await post('/v1/client/resolve', { 'user-agent': IPHONE });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect((await post('/v1/client/resolve', ios({ 'x-publishable-key': 'pk_unknown' }))).status).toBe(401);
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    const headers = {
      'x-publishable-key': tenant.publishableKeys.ios.key,
      'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
    };
    expect((await post('/v1/client/resolve', headers, { domain: 'nowhere.example', key: 'x' })).status).toBe(404);
    await apiKeyRepository.revoke(hashApiKey(tenant.publishableKeys.ios.key));
    expect((await post('/v1/client/resolve', headers, { domain: 'nowhere.example', key: 'x' })).status).toBe(401);
  });

  it('answers 403 forbidden for secret keys on client routes, and publishable keys get 403 on server routes', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { 'x-publishable-key': t.tenantA.serverKey },
      { authorization: `Bearer ${t.tenantA.mobileKey}` },
      { 'api-key': t.tenantA.serverKey },
      { 'api-key': t.tenantA.deepLinkApp.appKey },
    ]) {
      const res = await post('/v1/client/resolve', headers);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.data).toBeUndefined();
    }
    for (const key of Object.values(t.tenantA.publishableKeys).map((k) => k.key)) {
      const get = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: { 'api-key': key } });
      expect(get.status).toBe(403);
      const create = await http(t.baseUrl, 'POST', '/v1/links', {
        headers: { 'api-key': key },
        json: { url: 'https://a.com', domain: t.tenantA.domain },
      });
      expect(create.status).toBe(403);
      expect(JSON.stringify(get.body) + JSON.stringify(create.body)).not.toContain(link.url);
      // Sent the client way, a server route does not even see a key.
      expect(
        (await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: { 'x-publishable-key': key } })).status,
      ).toBe(401);
    }
  });

  it('answers 403 client_restriction_failed naming each failed restriction', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['environment', ios({ 'x-service-environment': 'staging' })],
      ['platform', ios({ 'x-service-platform': 'android' })],
      ['platform', browser({ 'x-service-platform': 'ios' })],
      ['origin', browser({ origin: 'https://evil.example' })],
      ['origin', (({ origin: _o, ...rest }) => rest)(browser())],
      ['package', android({ 'x-android-package': 'com.other.app' })],
      ['package', (({ 'x-android-package': _p, ...rest }) => rest)(android())],
      ['certificate', android({ 'x-android-sha256-cert': 'AB:'.repeat(31) + 'AB' })],
      ['certificate', (({ 'x-android-sha256-cert': _c, ...rest }) => rest)(android())],
      ['bundle', ios({ 'x-ios-bundle-id': 'com.other.app' })],
      ['bundle', (({ 'x-ios-bundle-id': _b, ...rest }) => rest)(ios())],
    ];
    for (const [reason, headers] of cases) {
      const res = await post('/v1/client/resolve', headers);
      expect(res.status, reason).toBe(403);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'client_restriction_failed', details: { reason } },
      });
    }
    // Certificates compare without colons and case; origins without a trailing slash or case.
    const cert = t.tenantA.publishableKeys.android.sha256Cert.replace(/:/g, '').toLowerCase();
    expect((await post('/v1/client/resolve', android({ 'x-android-sha256-cert': cert }))).status).toBe(200);
    expect(
      (await post('/v1/client/resolve', browser({ origin: t.tenantA.publishableKeys.browser.origin.toUpperCase() })))
        .status,
    ).toBe(200);
  });
});

describe('CORS for browser keys', () => {
  const origin = () => t.tenantA.publishableKeys.browser.origin;

  it('answers a preflight for an origin some browser key allows, and refuses others', async () => {
    const pre = await http(t.baseUrl, 'OPTIONS', '/v1/client/attribution/click', {
      headers: {
        origin: origin(),
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-publishable-key',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin());
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toContain('x-publishable-key');
    const tenant = await bootstrapTenant({
      baseUrl: t.baseUrl,
      edgeUrl: t.edgeUrl,
      browserOrigin: 'https://shop.example.net',
    });
    const other = await http(t.baseUrl, 'OPTIONS', '/v1/client/events', {
      headers: { origin: 'https://shop.example.net', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBe('https://shop.example.net');
    const evil = await http(t.baseUrl, 'OPTIONS', '/v1/client/resolve', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(evil.status).toBe(204);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    // The actual request: the origin is echoed only for the key that lists it.
    const own = await post('/v1/client/resolve', browser());
    expect(own.headers.get('access-control-allow-origin')).toBe(origin());
    expect(own.headers.get('vary')).toContain('Origin');
    const foreignKey = await post(
      '/v1/client/resolve',
      browser({ 'x-publishable-key': tenant.publishableKeys.browser.key }),
    );
    expect(foreignKey.status).toBe(403);
    expect(foreignKey.headers.get('access-control-allow-origin')).toBeNull();
    expect((await post('/v1/client/resolve', ios())).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('POST /v1/client/resolve', () => {
  it('resolves linkId, shortLink, url, domain+key and domain+slug to the same ClientLinkPayload', async () => {
    const payload = {
      linkId: link.id,
      linkType: 'SHORTLINK',
      deepLinkAppId: null,
      shortLink: link.shortLink,
      domain: link.domain,
      key: link.key,
      url: link.url,
      passwordProtected: false,
    };
    for (const ref of [
      { linkId: link.id },
      { shortLink: link.shortLink },
      { url: link.shortLink },
      { domain: link.domain, key: link.key },
      { domain: link.domain.toUpperCase(), slug: link.key },
    ]) {
      const res = await post('/v1/client/resolve', ios(), ref);
      expect(res.status).toBe(200);
      // destinationUrl (extension): where a click would go, as on the edge (docs/links-api.md, geo targeting).
      expect(res.body).toEqual({
        success: true,
        data: { link: payload, destinationUrl: link.url },
        requestId: expect.any(String),
      });
    }
    // linkId wins over the others.
    expect(
      (await post('/v1/client/resolve', ios(), { linkId: link.id, shortLink: 'https://x.example/nope' })).body.data.link
        .linkId,
    ).toBe(link.id);
  });

  it("answers 400 without a usable reference, 404 for unknown links and other workspaces' links", async () => {
    for (const body of [
      {},
      { domain: link.domain },
      { key: link.key },
      { shortLink: 'not a url' },
      { url: `https://${link.domain}/` },
      { shortLink: `https://${link.domain}/%E0%A4%A` },
    ]) {
      const res = await post('/v1/client/resolve', ios(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect((await post('/v1/client/resolve', ios(), { linkId: 'lnk_nope' })).status).toBe(404);
    const theirs = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantB.serverKey },
      json: { url: 'https://b.example', domain: t.tenantB.domain },
    });
    const res = await post('/v1/client/resolve', ios(), { linkId: theirs.body.data.id });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('b.example');
  });
});

describe('click -> event in the lake and counters moved (end to end)', () => {
  it('records a click: 201 ClientClickResponse, a click event in the partitioned lake, clicks +1', async () => {
    const res = await post('/v1/client/attribution/click', browser({ referer: 'https://news.example.org/story' }), {
      shortLink: link.shortLink,
      sessionId: 'sess-e2e',
    });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'attributionId',
        'clickId',
        'deferredDeepLink',
        'destinationUrl',
        'eligible',
        'expiresAt',
        'installId',
        'sessionId',
      ].sort(),
    );
    expect(data.destinationUrl).toBe(link.url);
    expect(data).toMatchObject({
      sessionId: 'sess-e2e',
      installId: null,
      eligible: true,
      deferredDeepLink: { linkId: link.id, url: link.url },
    });
    expect(data.clickId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(data.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);

    const events = readLake().filter((e) => e.line.clickId === data.clickId);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(eventRecordSchema.parse(event!.line)).toBeTruthy();
    expect(event!.line).toMatchObject({
      eventType: 'click',
      workspaceId: t.tenantA.workspaceId,
      linkId: link.id,
      attributionId: data.attributionId,
      sessionId: 'sess-e2e',
      trafficType: 'human',
      platform: 'ios',
      referrerHost: 'news.example.org',
      responseKind: 'api',
    });
    const ts = event!.line.timestamp as string;
    expect(event!.dir).toBe(
      rawPartitionPath({ shard: shardOf(t.tenantA.workspaceId), dt: ts.slice(0, 10), hour: ts.slice(11, 13) }),
    );
    expect(JSON.stringify(event!.line)).not.toContain('127.0.0.1');

    const bot = await post('/v1/client/attribution/click', browser({ 'user-agent': BOT }), { linkId: link.id });
    expect(bot.body.data).toMatchObject({ eligible: false, deferredDeepLink: null });
    const got = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: { 'api-key': t.tenantA.serverKey } });
    expect(got.body.data).toMatchObject({
      clicks: 1,
      botClicks: 1,
      lastClicked: event!.line.timestamp,
      lastBotClickedAt: expect.any(String),
    });
  });
});

describe('first-open and deferred-deep-link', () => {
  it('matches an app open to a click, deterministically and probabilistically; first-open is 201 once per install', async () => {
    const click = await post('/v1/client/attribution/click', browser({ 'user-agent': ANDROID }), { linkId: link.id });
    const deferred = await post('/v1/client/deferred-deep-link', android(), { installId: 'e2e-install-1' });
    expect(deferred.status).toBe(200);
    expect(deferred.body.data).toEqual({
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: click.body.data.deferredDeepLink,
    });
    const byId = await post(
      '/v1/client/deferred-deep-link',
      ios({ 'user-agent': 'DemoApp/2 CFNetwork/1490 Darwin/23.2.0' }),
      { attributionId: click.body.data.attributionId },
    );
    expect(byId.body.data).toMatchObject({ matched: true, matchType: 'deterministic' });

    const opened = await post('/v1/client/first-open', android(), {
      installId: 'e2e-install-1',
      clickId: click.body.data.clickId,
    });
    expect(opened.status).toBe(201);
    expect(opened.body.data).toEqual({
      openId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      matched: true,
      matchType: 'deterministic',
      matchGuaranteed: true,
      deferredDeepLink: click.body.data.deferredDeepLink,
    });
    const again = await post('/v1/client/first-open', android(), { installId: 'e2e-install-1' });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(opened.body.data);
    const lake = readLake().filter((e) => e.line.installId === 'e2e-install-1');
    expect(lake.map((e) => e.line.eventType)).toEqual(['first_open']);

    // An open naming a link nobody clicked matches nothing (other iPhones behind this IP clicked other links).
    const unclicked = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/quiet', domain: t.tenantA.domain },
    });
    const unmatched = await post(
      '/v1/client/first-open',
      ios({ 'user-agent': 'DemoApp/2 CFNetwork/1490 Darwin/23.2.0' }),
      { eventType: 'install', linkId: unclicked.body.data.id },
    );
    expect(unmatched.body.data).toMatchObject({ matched: false, matchType: null, deferredDeepLink: null });
    expect((await post('/v1/client/first-open', ios(), { eventType: 'reinstall' })).status).toBe(400);
  });
});

describe('POST /v1/client/events', () => {
  it('answers 202 with queued / duplicate per event', async () => {
    const res = await post('/v1/client/events', browser(), {
      events: [
        { name: 'add_to_cart', eventId: 'e2e-evt-1', properties: { sku: 'A1', qty: 2, gift: false } },
        { name: 'add_to_cart', eventId: 'e2e-evt-1' },
        { name: 'checkout.start' },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.data.accepted).toEqual([
      { eventId: 'e2e-evt-1', status: 'queued' },
      { eventId: 'e2e-evt-1', status: 'duplicate' },
      { eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' },
    ]);
    expect(
      (await post('/v1/client/events', ios(), { events: [{ name: 'add_to_cart', eventId: 'e2e-evt-1' }] })).body.data
        .accepted[0].status,
    ).toBe('duplicate');
    expect(
      readLake()
        .filter((e) => e.line.eventId === 'e2e-evt-1')
        .map((e) => e.line.sdkEventName),
    ).toEqual(['add_to_cart']);
  });

  it('validates count, names and properties', async () => {
    const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));
    const cases: Array<[unknown, string]> = [
      [{ events: [] }, 'events'],
      [{ events: Array.from({ length: 51 }, () => ({ name: 'a' })) }, 'events'],
      [{ events: [{ name: '1abc' }] }, 'events.0.name'],
      [{ events: [{ name: 'a'.repeat(65) }] }, 'events.0.name'],
      [{ events: [{ name: 'ok', properties: props(51) }] }, 'events.0.properties'],
      [{ events: [{ name: 'ok', properties: { nested: { a: 1 } } }] }, 'events.0.properties.nested'],
      [{}, 'events'],
    ];
    for (const [body, path] of cases) {
      const res = await post('/v1/client/events', ios(), body);
      expect(res.status, path).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect(
      (
        await post('/v1/client/events', ios(), {
          events: Array.from({ length: 50 }, () => ({ name: 'a', properties: props(50) })),
        })
      ).status,
    ).toBe(202);
    expect((await post('/v1/client/events', ios(), { events: [{ name: 'a'.repeat(64) }] })).status).toBe(202);
  });
});
