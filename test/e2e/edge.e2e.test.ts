import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { MAX_PASSWORD_ATTEMPTS } from '@shared/edge/password-attempts';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import type { CreateDeepLinkBody, CreateLinkBody } from '@shared/schemas/link-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { prefixedId, randomBase62 } from '@shared/util/ids';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  desktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  bot: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
};

let t: TestStack;
let fallbackDomain: string;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const now = new Date().toISOString();
  fallbackDomain = `fb-${randomBase62(8).toLowerCase()}.localhost`;
  await domainRepository.create({
    id: prefixedId('dom'),
    workspaceId: t.tenantA.workspaceId,
    domain: fallbackDomain,
    verified: true,
    placeholder: null,
    expiredUrl: 'https://fallback.example.com/expired',
    notFoundUrl: 'https://fallback.example.com/not-found',
    primary: false,
    archived: false,
    usage: 'SHORTLINK',
    appId: null,
    createdAt: now,
    updatedAt: now,
  });
});

const shortLink = (body: Partial<CreateLinkBody> & { url: string }) =>
  createShortLink(t.tenantA.workspaceId, { domain: t.tenantA.domain, ...body }, TEST_ORIGIN);
const deepLink = (body: Partial<CreateDeepLinkBody> = {}) =>
  createDeepLink(
    t.tenantA.workspaceId,
    {
      deepLinkAppId: t.tenantA.deepLinkApp.id,
      url: 'https://www.example.com/product/1',
      ...body,
    },
    TEST_ORIGIN,
  );
/** One edge request, returned once the edge has finished it (a click is recorded after the response). */
const get = async (host: string, path: string, headers: Record<string, string> = {}, method = 'GET') => {
  const res = await edgeRequest(t.edgeUrl, { host, path, method, headers: { 'user-agent': UA.desktop, ...headers } });
  await t.idle();
  return res;
};
const eventsOf = async (linkId: string) => (await readLakeEvents()).filter((e) => e.linkId === linkId);

describe('edge redirects', () => {
  it('answers an unknown host with a plain 404', async () => {
    const res = await get('nobody-here.localhost', '/abc');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('Not Found');
  });

  it('redirects with 302, no caching, a referrer policy, and records the click with counters', async () => {
    const link = await shortLink({ url: 'https://example.com/landing' });
    const res = await get(t.tenantA.domain, `/${link.key}`, {
      'cloudfront-viewer-country': 'de',
      referer: 'https://news.example.org/story?id=1',
      'x-request-id': 'edge-req-1',
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/landing');
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['x-request-id']).toBe('edge-req-1');

    const stored = await linkRepository.findById(link.id, true);
    expect(stored).toMatchObject({ clicks: 1, botClicks: 0 });
    expect(stored!.lastClicked).not.toBeNull();
    const [click] = await eventsOf(link.id);
    expect(click).toMatchObject({
      eventType: 'click',
      workspaceId: t.tenantA.workspaceId,
      trafficType: 'human',
      country: 'DE',
      deviceType: 'desktop',
      platform: 'desktop',
      referrerHost: 'news.example.org',
      resolvedDestinationUrl: 'https://example.com/landing',
      responseKind: 'redirect',
      domain: t.tenantA.domain,
      linkKey: link.key,
    });
    expect(click!.visitorId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is case-insensitive on the host and case-sensitive on the key', async () => {
    const link = await shortLink({ url: 'https://example.com/case', key: `CaseKey${randomBase62(4)}` });
    expect((await get(t.tenantA.domain.toUpperCase(), `/${link.key}`)).status).toBe(302);
    expect((await get(t.tenantA.domain, `/${link.key.toLowerCase()}`)).status).toBe(404);
  });

  it('chooses the platform override by user agent, else the url', async () => {
    const link = await shortLink({
      url: 'https://example.com/default',
      iosOverrideUrl: 'https://example.com/ios',
      androidOverrideUrl: 'https://example.com/android',
      desktopOverrideUrl: 'https://example.com/desktop',
    });
    const location = async (ua: string) =>
      (await get(t.tenantA.domain, `/${link.key}`, { 'user-agent': ua })).headers.location;
    expect(await location(UA.iphone)).toBe('https://example.com/ios');
    expect(await location(UA.android)).toBe('https://example.com/android');
    expect(await location(UA.desktop)).toBe('https://example.com/desktop');
    expect(await location('SomeTV/1.0 (SmartTV; Tizen)')).toBe('https://example.com/default');
  });

  it('appends tracking parameters and keeps the destination query as it is', async () => {
    const link = await shortLink({
      url: 'https://example.com/p?a=1&utm_source=keep',
      tracking: { utmSource: 'news', utmMedium: 'email', utmCampaign: 'spring sale', customParams: { x: 'y&z' } },
    });
    const location = new URL(String((await get(t.tenantA.domain, `/${link.key}`)).headers.location));
    expect(location.origin + location.pathname).toBe('https://example.com/p');
    expect([...location.searchParams]).toEqual([
      ['a', '1'],
      ['utm_source', 'keep'],
      ['utm_medium', 'email'],
      ['utm_campaign', 'spring sale'],
      ['x', 'y&z'],
    ]);
  });

  it('sends expired links to the link expiredUrl, else the domain expiredUrl, else a 410 page', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const own = await shortLink({
      url: 'https://example.com/a',
      expiresAt: past,
      expiredUrl: 'https://example.com/link-expired',
    });
    expect((await get(t.tenantA.domain, `/${own.key}`)).headers.location).toBe('https://example.com/link-expired');
    const onFallback = await shortLink({ url: 'https://example.com/b', expiresAt: past, domain: fallbackDomain });
    const viaDomain = await get(fallbackDomain, `/${onFallback.key}`);
    expect(viaDomain.status).toBe(302);
    expect(viaDomain.headers.location).toBe('https://fallback.example.com/expired');
    const bare = await shortLink({ url: 'https://example.com/c', expiresAt: past });
    const gone = await get(t.tenantA.domain, `/${bare.key}`);
    expect(gone.status).toBe(410);
    expect(gone.headers['content-type']).toMatch(/^text\/html/);
    expect(gone.text).toContain('Link expired');
    const [event] = await eventsOf(bare.id);
    expect(event).toMatchObject({ eventType: 'click', responseKind: 'expired', resolvedDestinationUrl: null });
    const future = await shortLink({
      url: 'https://example.com/live',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await get(t.tenantA.domain, `/${future.key}`)).headers.location).toBe('https://example.com/live');
  });

  it('sends unknown and archived keys to the domain notFoundUrl, else a 404 page', async () => {
    const viaDomain = await get(fallbackDomain, '/no-such-key');
    expect(viaDomain.status).toBe(302);
    expect(viaDomain.headers.location).toBe('https://fallback.example.com/not-found');
    const missing = await get(t.tenantA.domain, '/no-such-key');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect((await get(t.tenantA.domain, '/bad..key!')).status).toBe(404);
    expect((await get(t.tenantA.domain, '/')).status).toBe(404);
    expect((await get(t.tenantA.domain, '/a/b/c')).status).toBe(404);

    const link = await shortLink({ url: 'https://example.com/archived' });
    // What archiving writes to the slug item (the archive route keeps it in sync).
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.slug(link.domain, link.key),
        UpdateExpression: 'SET archived = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    expect((await get(t.tenantA.domain, `/${link.key}`)).status).toBe(404);
  });

  it('answers HEAD like GET but counts it as a bot click, whatever the user agent', async () => {
    const link = await shortLink({ url: 'https://example.com/head' });
    const res = await get(t.tenantA.domain, `/${link.key}`, {}, 'HEAD');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/head');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 0, botClicks: 1 });
    const [event] = await eventsOf(link.id);
    expect(event).toMatchObject({ trafficType: 'bot', deviceType: 'bot' });
  });
});

describe('bot previews', () => {
  it('gives crawlers Open Graph and Twitter tags, every value escaped, no redirect, counted as a bot click', async () => {
    const link = await shortLink({
      url: 'https://example.com/article',
      title: 'Fallback <b>title</b>',
      socialPreview: {
        description: 'Say "hi" & <script>alert(1)</script>',
        image: 'https://img.example.com/a.png?x=1&y=2',
        imageAlt: "it's",
      },
    });
    const res = await get(t.tenantA.domain, `/${link.key}`, { 'user-agent': UA.bot });
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('<meta property="og:title" content="Fallback &lt;b&gt;title&lt;/b&gt;">');
    expect(res.text).toContain(
      '<meta property="og:description" content="Say &quot;hi&quot; &amp; &lt;script&gt;alert(1)&lt;/script&gt;">',
    );
    expect(res.text).toContain('<meta property="og:image" content="https://img.example.com/a.png?x=1&amp;y=2">');
    expect(res.text).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(res.text).toContain('<meta property="og:image:alt" content="it&#39;s">');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).not.toMatch(/http-equiv="refresh"/i);
    expect(res.text).toContain('href="https://example.com/article"');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 0, botClicks: 1 });
    const [event] = await eventsOf(link.id);
    expect(event).toMatchObject({ trafficType: 'bot', responseKind: 'preview' });
  });

  it('prefers socialPreview.title and sends a strict CSP on pages', async () => {
    const link = await shortLink({
      url: 'https://example.com/x',
      title: 'Plain',
      socialPreview: { title: 'Shared title' },
    });
    const res = await get(t.tenantA.domain, `/${link.key}`, { 'user-agent': UA.bot });
    expect(res.text).toContain('<meta name="twitter:title" content="Shared title">');
    expect(res.text).toContain('<meta name="twitter:card" content="summary">');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).not.toMatch(/<script[^>]*src=|<link[^>]*stylesheet|fonts\.googleapis/);
  });
});

describe('password-protected links', () => {
  const form = (password: string) => ({
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': UA.desktop,
    body: `password=${encodeURIComponent(password)}`,
  });
  const post = async (key: string, password: string) => {
    const { body, ...headers } = form(password);
    const res = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: `/${key}`,
      method: 'POST',
      headers,
      body,
    });
    await t.idle();
    return res;
  };

  it('shows the form, refuses a wrong password with 401, and redirects on the right one without leaking it', async () => {
    const link = await shortLink({ url: 'https://example.com/secret', password: 'open sesame', title: 'Hidden title' });
    const page = await get(t.tenantA.domain, `/${link.key}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="/${link.key}">`);
    expect(page.text).toContain('type="password"');
    expect(page.text).not.toContain('Hidden title');
    expect(page.text).not.toContain('example.com/secret');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 0 });

    const wrong = await post(link.key, 'nope');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong password');
    expect(wrong.text).toContain('<form method="post"');

    const right = await post(link.key, 'open sesame');
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('https://example.com/secret');
    expect(right.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(right.headers)).not.toContain('sesame');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 1 });
    const events = await eventsOf(link.id);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('sesame');

    const empty = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: `/${link.key}`,
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(empty.status).toBe(400);
  });

  it('refuses repeated wrong tries from one client with 429 and Retry-After', async () => {
    const link = await shortLink({ url: 'https://example.com/locked', password: 'right' });
    for (let i = 0; i < MAX_PASSWORD_ATTEMPTS; i++) expect((await post(link.key, `wrong-${i}`)).status).toBe(401);
    const refused = await post(link.key, 'right');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many attempts');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 0 });
    // Another link is not affected.
    const other = await shortLink({ url: 'https://example.com/other', password: 'right' });
    expect((await post(other.key, 'right')).status).toBe(303);
  });

  it('counts parallel tries exactly (conditional counter)', async () => {
    const link = await shortLink({ url: 'https://example.com/parallel', password: 'right' });
    const results = await Promise.all(
      Array.from({ length: MAX_PASSWORD_ATTEMPTS + 3 }, (_, i) => post(link.key, `wrong-${i}`)),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(MAX_PASSWORD_ATTEMPTS);
    expect(results.filter((r) => r.status === 429)).toHaveLength(3);
  });

  it('gives bots the form, not a preview, and counts them as bots', async () => {
    const link = await shortLink({
      url: 'https://example.com/p',
      password: 'pw',
      socialPreview: { title: 'Secret preview' },
    });
    const res = await get(t.tenantA.domain, `/${link.key}`, { 'user-agent': UA.bot });
    expect(res.status).toBe(200);
    expect(res.text).toContain('type="password"');
    expect(res.text).not.toContain('Secret preview');
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ botClicks: 1, clicks: 0 });
  });
});

describe('deep links: launch view and app-link files', () => {
  it('shows the launch view on iOS with an Open in app link on the alternate host, and records click + impression', async () => {
    const link = await deepLink({ tracking: { utmSource: 'app' } });
    const res = await get(t.tenantA.deepLinkApp.domain, `/${link.key}`, { 'user-agent': UA.iphone });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const port = new URL(t.edgeUrl).port;
    expect(res.text).toMatch(
      new RegExp(
        `id="open" class="button primary" href="http://open\\.${t.tenantA.deepLinkApp.domain.replace(/\./g, '\\.')}:${port}/${link.key}\\?c=[0-9a-f-]{36}"`,
      ),
    );
    expect(res.text).toContain('href="https://www.example.com/product/1?utm_source=app"');
    // Nothing automatic: no timer, no navigation from script.
    expect(res.text).not.toMatch(/setTimeout|location\.(?:replace|assign|href\s*=)/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("connect-src 'self'");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    const events = await eventsOf(link.id);
    expect(events.map((e) => e.eventType).sort()).toEqual(['click', 'launch_view_impression']);
    expect(
      events.every(
        (e) => e.responseKind === 'launch_view' && e.platform === 'ios' && e.deepLinkAppId === t.tenantA.deepLinkApp.id,
      ),
    ).toBe(true);
    expect(new Set(events.map((e) => e.clickId)).size).toBe(1);
  });

  it('uses an intent URL on Android and goes straight to the destination on desktop', async () => {
    const link = await deepLink();
    const android = await get(t.tenantA.deepLinkApp.domain, `/${link.key}`, { 'user-agent': UA.android });
    expect(android.status).toBe(200);
    const clickId = /data-click="([0-9a-f-]{36})"/.exec(android.text)?.[1];
    const store = `https://play.google.com/store/apps/details?id=${t.tenantA.publishableKeys.android.package}&referrer=click_id%3D${clickId}`;
    expect(android.text).toContain(
      `href="intent://${t.tenantA.deepLinkApp.domain}:${new URL(t.edgeUrl).port}/${link.key}?c=${clickId}#Intent;scheme=http;package=${t.tenantA.publishableKeys.android.package};S.browser_fallback_url=${encodeURIComponent(store)};end"`,
    );
    const desktop = await get(t.tenantA.deepLinkApp.domain, `/${link.key}`);
    expect(desktop.status).toBe(302);
    expect(desktop.headers.location).toBe('https://www.example.com/product/1');
  });

  it('on the alternate host: Open in app (with its click id) goes to the store; anything else to the link on the app domain', async () => {
    const link = await deepLink();
    const clickId = '0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1d';
    const open = await get(`open.${t.tenantA.deepLinkApp.domain}`, `/${link.key}?c=${clickId}`, {
      'user-agent': UA.iphone,
    });
    expect(open.headers.location).toBe('https://apps.apple.com/app/id000000000');
    const android = await get(`open.${t.tenantA.deepLinkApp.domain}`, `/${link.key}?c=${clickId}`, {
      'user-agent': UA.android,
    });
    expect(android.headers.location).toBe(
      `https://play.google.com/store/apps/details?id=${t.tenantA.publishableKeys.android.package}&referrer=click_id%3D${clickId}`,
    );
    const bare = await get(`open.${t.tenantA.deepLinkApp.domain}`, `/${link.key}`, { 'user-agent': UA.iphone });
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe(`http://${t.tenantA.deepLinkApp.domain}:${new URL(t.edgeUrl).port}/${link.key}`);
    // The alternate host records nothing itself: the launch view that gave the click id did.
    expect(await eventsOf(link.id)).toEqual([]);
  });

  it('records launch view beacons for live deep links only', async () => {
    const link = await deepLink();
    const beacon = (body: string, host = t.tenantA.deepLinkApp.domain) =>
      edgeRequest(t.edgeUrl, {
        host,
        path: '/api/launch-view-events',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA.iphone },
        body,
      });
    const clickId = '0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1e';
    expect((await beacon(`k=${link.key}&e=primary_click&c=${clickId}`)).status).toBe(204);
    expect((await beacon(`k=${link.key}&e=secondary_click&c=${clickId}`)).status).toBe(204);
    expect((await beacon(`k=${link.key}&e=install&c=${clickId}`)).status).toBe(400);
    expect((await beacon(`k=nope&e=primary_click`)).status).toBe(400);
    const short = await shortLink({ url: 'https://example.com/s' });
    expect((await beacon(`k=${short.key}&e=primary_click`, t.tenantA.domain)).status).toBe(400);
    const events = await eventsOf(link.id);
    expect(events.map((e) => e.eventType).sort()).toEqual(['launch_view_primary_click', 'launch_view_secondary_click']);
    expect(events.every((e) => e.clickId === clickId && e.platform === 'ios' && e.trafficType === 'human')).toBe(true);
  });

  it("serves the app-link files on the app's domain from its configuration", async () => {
    const aasa = await get(t.tenantA.deepLinkApp.domain, '/.well-known/apple-app-site-association');
    expect(aasa.status).toBe(200);
    expect(aasa.headers['content-type']).toBe('application/json');
    const appId = `ABCDE12345.${t.tenantA.publishableKeys.ios.bundleId}`;
    const parsed = JSON.parse(aasa.text);
    expect(parsed.applinks.details[0].appIDs).toEqual([appId]);
    expect(parsed.applinks.details[0].components).toContainEqual({ '/': '/*' });
    const assets = await get(t.tenantA.deepLinkApp.domain, '/.well-known/assetlinks.json');
    expect(assets.status).toBe(200);
    expect(assets.headers['content-type']).toBe('application/json');
    expect(JSON.parse(assets.text)).toEqual([
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: {
          namespace: 'android_app',
          package_name: t.tenantA.publishableKeys.android.package,
          sha256_cert_fingerprints: [t.tenantA.publishableKeys.android.sha256Cert],
        },
      },
    ]);
    expect((await get(`open.${t.tenantA.deepLinkApp.domain}`, '/.well-known/apple-app-site-association')).status).toBe(
      200,
    );
    expect((await get(t.tenantA.domain, '/.well-known/apple-app-site-association')).status).toBe(404);
    expect((await get('nobody.localhost', '/.well-known/assetlinks.json')).status).toBe(404);
  });
});
