/**
 * Issue 18: the deep-link flow as real phones drive it, end to end through the local stack:
 * a tap on the edge (with the user agents browsers really send), then the app's first open or
 * deferred-deep-link call (with the user agents apps really send).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { configureApp } from '@shared/admin/configure-app';
import { createDeepLink } from '@shared/links/create-deep-link';
import type { CreateDeepLinkBody } from '@shared/schemas/link-schemas';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';
import { TEST_ORIGIN } from '@test/support/test-origin';

/** What browsers and apps really send (issue 18). */
const UA = {
  /** Chrome on Android since M110: the reduced user agent (frozen `Android 10; K`). */
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  safariIos18:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1',
  /** Safari on iOS 26 still reports 18_6 in the OS token. */
  safariIos26:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1',
  /** The apps' own HTTP clients: the real OS version, or none. */
  dalvik: 'Dalvik/2.1.0 (Linux; U; Android 15; Pixel 9 Build/AP3A.241105.007)',
  cfnetwork: 'Demo/1.0 CFNetwork/3860.100.1 Darwin/25.0.0',
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 385.0.0.32.79 (iPhone16,2; iOS 18_5; en_US; en; scale=3.00; 1290x2796; 745960233)',
  facebookIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/480.0.0.46.109;FBBV/665783261;FBDV/iPhone16,2;FBMD/iPhone;FBSN/iOS;FBSV/18.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/127.0.6533.103 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/477.0.0.49.82;]',
  tiktokIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_37.0.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en-US isDarkMode/0 WKWebView/1 BytedanceWebview/d8a21c6',
  tiktokAndroid:
    'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.134 Mobile Safari/537.36 musical_ly_2023601040 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/36.1.4 ByteLocale/en BytedanceWebview/d8a21c6',
};

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

/**
 * Every test gets its own workspace: fingerprints are per workspace, and every request here
 * comes from the same loopback IP (as phones behind one router would).
 */
const newTenant = () => bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });

const deepLink = (tenant: BootstrapResult, body: Partial<CreateDeepLinkBody> = {}) =>
  createDeepLink(
    tenant.workspaceId,
    {
      deepLinkAppId: tenant.deepLinkApp.id,
      url: 'https://www.example.com/spring-sale',
      ...body,
    },
    TEST_ORIGIN,
  );

/** A tap in a phone's browser on the app domain. */
/** A tap in a phone's browser on the app domain, returned once the edge has recorded it (click and attribution follow the response). */
const tap = async (
  tenant: BootstrapResult,
  path: string,
  userAgent: string,
  options: { host?: string; method?: string; body?: string; headers?: Record<string, string> } = {},
) => {
  const res = await edgeRequest(t.edgeUrl, {
    host: options.host ?? tenant.deepLinkApp.domain,
    path,
    method: options.method,
    body: options.body,
    headers: { 'user-agent': userAgent, ...options.headers },
  });
  await t.idle();
  return res;
};

const clickIdOf = (html: string) => {
  const id = /data-click="([0-9a-f-]{36})"/.exec(html)?.[1];
  expect(id).toBeDefined();
  return id!;
};
const hrefOf = (html: string, id: string) => {
  const href = new RegExp(`id="${id}"[^>]* href="([^"]+)"`).exec(html)?.[1];
  expect(href).toBeDefined();
  return href!.replace(/&amp;/g, '&');
};

/** The app's own calls, with its publishable key and its HTTP client's user agent. */
const app = (tenant: BootstrapResult, platform: 'ios' | 'android') => {
  const headers: Record<string, string> =
    platform === 'ios'
      ? {
          'x-publishable-key': tenant.publishableKeys.ios.key,
          'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
          'user-agent': UA.cfnetwork,
        }
      : {
          'x-publishable-key': tenant.publishableKeys.android.key,
          'x-android-package': tenant.publishableKeys.android.package,
          'x-android-sha256-cert': tenant.publishableKeys.android.sha256Cert,
          'user-agent': UA.dalvik,
        };
  const post = (path: string, json: unknown) => http(t.baseUrl, 'POST', path, { headers, json });
  return {
    firstOpen: (json: Record<string, unknown>) => post('/v1/client/first-open', json),
    deferred: (json: Record<string, unknown>) => post('/v1/client/deferred-deep-link', json),
    resolve: (json: Record<string, unknown>) => post('/v1/client/resolve', json),
  };
};

describe('tap on the edge, then the app opens for the first time', () => {
  it('iOS 26 Safari: the launch view click id sent on first open is a deterministic, guaranteed match', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    const page = await tap(tenant, `/${link.key}`, UA.safariIos26);
    expect(page.status).toBe(200);
    // No title given: the heading is the app's name, not the short link.
    expect(page.text).toContain('<h1>Demo app</h1>');
    const clickId = clickIdOf(page.text);
    // "Open in app" carries the click id: the app gets it with the universal link.
    expect(hrefOf(page.text, 'open')).toBe(
      `http://open.${tenant.deepLinkApp.domain}:${new URL(t.edgeUrl).port}/${link.key}?c=${clickId}`,
    );

    const opened = await app(tenant, 'ios').firstOpen({ clickId, installId: 'ios-install-1' });
    expect(opened.status).toBe(201);
    expect(opened.body.data).toMatchObject({
      matched: true,
      matchType: 'deterministic',
      matchGuaranteed: true,
      deferredDeepLink: {
        linkId: link.id,
        linkType: 'DEEPLINK',
        url: 'https://www.example.com/spring-sale',
        passwordProtected: false,
      },
    });
    // The click event and the open carry the same click id.
    const events = (await readLakeEvents()).filter((e) => e.linkId === link.id);
    expect(events.find((e) => e.eventType === 'click')).toMatchObject({
      clickId,
      platform: 'ios',
      trafficType: 'human',
    });
    expect(events.find((e) => e.eventType === 'first_open')).toMatchObject({ clickId, installId: 'ios-install-1' });
  });

  it('reduced Chrome on Android: the Play Store fallback carries the click id in referrer, which first-open matches', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant, {
      tracking: { utmSource: 'newsletter', utmCampaign: 'spring' },
    });
    const page = await tap(tenant, `/${link.key}`, UA.chromeAndroid);
    expect(page.status).toBe(200);
    const clickId = clickIdOf(page.text);
    const intent = hrefOf(page.text, 'open');
    expect(intent).toMatch(
      new RegExp(
        `^intent://[^#]+/${link.key}\\?c=${clickId}#Intent;scheme=http;package=${tenant.publishableKeys.android.package.replace(/\./g, '\\.')};`,
      ),
    );
    const fallback = new URL(decodeURIComponent(/S\.browser_fallback_url=([^;]+);/.exec(intent)![1]!));
    expect(fallback.origin + fallback.pathname).toBe('https://play.google.com/store/apps/details');
    expect(fallback.searchParams.get('id')).toBe(tenant.publishableKeys.android.package);
    // What the Play Install Referrer API hands the app after the install.
    const installReferrer = new URLSearchParams(fallback.searchParams.get('referrer')!);
    expect(Object.fromEntries(installReferrer)).toEqual({
      click_id: clickId,
      utm_source: 'newsletter',
      utm_campaign: 'spring',
    });

    const opened = await app(tenant, 'android').firstOpen({
      clickId: installReferrer.get('click_id'),
      installId: 'android-install-1',
    });
    expect(opened.body.data).toMatchObject({
      matched: true,
      matchType: 'deterministic',
      matchGuaranteed: true,
      deferredDeepLink: { linkId: link.id },
    });
  });

  it('iOS 18 Safari then the app (CFNetwork, no OS version): deferred deep link by fingerprint, probabilistic', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    expect((await tap(tenant, `/${link.key}`, UA.safariIos18)).status).toBe(200);
    const deferred = await app(tenant, 'ios').deferred({ installId: 'ios-a' });
    expect(deferred.status).toBe(200);
    expect(deferred.body.data).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: { linkId: link.id },
    });
    // The same install's first open gets the click it claimed.
    const opened = await app(tenant, 'ios').firstOpen({ installId: 'ios-a' });
    expect(opened.body.data).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: { linkId: link.id },
    });
  });

  it('reduced Chrome (Android 10; K) then the app (Dalvik, Android 15): the fingerprint still matches', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    expect((await tap(tenant, `/${link.key}`, UA.chromeAndroid)).status).toBe(200);
    const opened = await app(tenant, 'android').firstOpen({ installId: 'android-a' });
    expect(opened.body.data).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: { linkId: link.id },
    });
  });

  it('a second install behind the same IP does not claim the same click', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    expect((await tap(tenant, `/${link.key}`, UA.safariIos26)).status).toBe(200);
    const ios = app(tenant, 'ios');
    const [first, second] = await Promise.all([
      ios.firstOpen({ installId: 'install-1' }),
      ios.firstOpen({ installId: 'install-2' }),
    ]);
    const results = [first.body.data, second.body.data];
    // Exactly one of two concurrent installs gets the click (conditional write).
    expect(results.filter((r) => r.matched)).toHaveLength(1);
    expect(results.find((r) => r.matched)).toMatchObject({
      matchType: 'probabilistic',
      deferredDeepLink: { linkId: link.id },
    });
    const third = await ios.firstOpen({ installId: 'install-3' });
    expect(third.body.data).toMatchObject({
      matched: false,
      matchType: null,
      matchGuaranteed: false,
      deferredDeepLink: null,
    });
    // A deferred-deep-link peek without an installId does not see the claimed click either.
    expect((await ios.deferred({})).body.data).toMatchObject({ matched: false });
    // A later tap is a new click that the next install can claim.
    expect((await tap(tenant, `/${link.key}`, UA.safariIos26)).status).toBe(200);
    expect((await ios.firstOpen({ installId: 'install-3b' })).body.data).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
    });
  });

  it('a deep link opened on desktop (redirect) is attributable too; bots and HEAD are not', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    const bot = await tap(
      tenant,
      `/${link.key}`,
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    );
    expect(bot.status).toBe(200);
    const head = await tap(tenant, `/${link.key}`, UA.safariIos26, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await app(tenant, 'ios').deferred({})).body.data).toMatchObject({ matched: false });
    const desktop = await tap(
      tenant,
      `/${link.key}`,
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15',
    );
    expect(desktop.status).toBe(302);
    const clickId = (await readLakeEvents()).find(
      (e) => e.linkId === link.id && e.eventType === 'click' && e.platform === 'desktop',
    )?.clickId;
    expect(clickId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await app(tenant, 'ios').firstOpen({ clickId })).body.data).toMatchObject({
      matched: true,
      matchType: 'deterministic',
    });
  });
});

describe('in-app browsers', () => {
  const cases = [
    ['Instagram on iOS', UA.instagramIos, 'ios', 'Instagram'],
    ['Facebook on iOS', UA.facebookIos, 'ios', 'Facebook'],
    ['TikTok on iOS', UA.tiktokIos, 'ios', 'TikTok'],
    ['Facebook on Android', UA.facebookAndroid, 'android', 'Facebook'],
    ['TikTok on Android', UA.tiktokAndroid, 'android', 'TikTok'],
  ] as const;

  it.each(cases)(
    '%s: nothing automatic, Open in app uses the custom scheme with the click id, a hint to open the browser',
    async (_name, userAgent, platform, appName) => {
      const tenant = await newTenant();
      const link = await deepLink(tenant);
      const page = await tap(tenant, `/${link.key}`, userAgent);
      expect(page.status).toBe(200);
      const clickId = clickIdOf(page.text);
      expect(page.text).not.toMatch(/setTimeout|location\.(?:replace|assign|href\s*=)|http-equiv="refresh"/i);
      expect(page.text).not.toContain('data-auto');
      const scheme =
        platform === 'ios'
          ? tenant.publishableKeys.ios.bundleId.replace('com.example.', '')
          : tenant.publishableKeys.android.package.replace('com.example.', '');
      const open = hrefOf(page.text, 'open');
      if (platform === 'ios') expect(open).toBe(`${scheme}://${tenant.deepLinkApp.domain}/${link.key}?c=${clickId}`);
      else
        expect(open).toMatch(
          new RegExp(
            `^intent://${tenant.deepLinkApp.domain.replace(/\./g, '\\.')}/${link.key}\\?c=${clickId}#Intent;scheme=${scheme};package=`,
          ),
        );
      expect(page.text).toContain(`id="hint"`);
      expect(page.text).toContain(`the ${appName} menu`);
      expect(page.text).toContain(platform === 'ios' ? 'open this page in Safari' : 'open this page in Chrome');
      // The tap is attributable like any other.
      expect((await app(tenant, platform).firstOpen({ clickId })).body.data).toMatchObject({
        matched: true,
        matchType: 'deterministic',
      });
    },
  );

  it('a real browser gets no hint and the universal link', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    const page = await tap(tenant, `/${link.key}`, UA.safariIos26);
    expect(page.text).not.toContain('id="hint"');
    expect(hrefOf(page.text, 'open')).toMatch(/^http:\/\/open\./);
  });
});

describe('the app resolves what it was opened with', () => {
  it('resolves a link opened through the open. host', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant);
    const port = new URL(t.edgeUrl).port;
    for (const shortLink of [
      `https://open.${tenant.deepLinkApp.domain}/${link.key}`,
      `http://open.${tenant.deepLinkApp.domain}:${port}/${link.key}?c=0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1d`,
    ]) {
      const resolved = await app(tenant, 'ios').resolve({ shortLink });
      expect(resolved.status).toBe(200);
      expect(resolved.body.data.link).toMatchObject({
        linkId: link.id,
        domain: tenant.deepLinkApp.domain,
        shortLink: localShortLink(t.edgeUrl, tenant.deepLinkApp.domain, link.key),
      });
    }
    expect(
      (await app(tenant, 'android').resolve({ domain: `open.${tenant.deepLinkApp.domain}`, key: link.key })).body.data
        .link.linkId,
    ).toBe(link.id);
    // The short-link domain has no open. host.
    expect((await app(tenant, 'ios').resolve({ shortLink: `https://open.${tenant.domain}/${link.key}` })).status).toBe(
      404,
    );
  });

  it('a password-protected link: no payload holds the destination, and the tap after the password is attributable', async () => {
    const tenant = await newTenant();
    const link = await deepLink(tenant, {
      url: 'https://www.example.com/members-only',
      password: 'open sesame',
    });
    // The form the stack answers with, given back as the app would.
    const shortLink = localShortLink(t.edgeUrl, tenant.deepLinkApp.domain, link.key);
    const expected = { linkId: link.id, url: shortLink, shortLink, passwordProtected: true };
    const resolved = await app(tenant, 'ios').resolve({ shortLink });
    expect(resolved.body.data.link).toMatchObject(expected);
    expect(resolved.text).not.toContain('members-only');

    const form = await tap(tenant, `/${link.key}`, UA.safariIos26);
    expect(form.text).toContain('type="password"');
    const unlocked = await tap(tenant, `/${link.key}`, UA.safariIos26, {
      method: 'POST',
      body: 'password=open+sesame',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unlocked.status).toBe(200);
    const clickId = clickIdOf(unlocked.text);
    const opened = await app(tenant, 'ios').firstOpen({ clickId, installId: 'pw-install' });
    expect(opened.body.data).toMatchObject({ matched: true, matchType: 'deterministic', deferredDeepLink: expected });
    expect(opened.text).not.toContain('members-only');
    const deferred = await app(tenant, 'ios').deferred({ installId: 'pw-install' });
    expect(deferred.body.data.deferredDeepLink).toMatchObject(expected);
    const clicked = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
      headers: {
        'x-publishable-key': tenant.publishableKeys.ios.key,
        'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
        'user-agent': UA.cfnetwork,
      },
      json: { shortLink },
    });
    expect(clicked.body.data.deferredDeepLink).toMatchObject(expected);
    expect(clicked.text).not.toContain('members-only');
  });
});

describe('iOS pasteboard hand-off and App Clip (opt-in per app)', () => {
  it('copies nothing unless the app opted in; then Open in app carries the hand-off URL, and the AASA names the App Clip', async () => {
    const plain = await newTenant();
    const plainLink = await deepLink(plain);
    expect((await tap(plain, `/${plainLink.key}`, UA.safariIos26)).text).not.toContain('data-handoff');
    expect(
      JSON.parse((await tap(plain, '/.well-known/apple-app-site-association', UA.safariIos26)).text),
    ).not.toHaveProperty('appclips');

    // Opted in before the edge first reads the app (it caches app settings for up to 60 s).
    const other = await newTenant();
    await configureApp(other.deepLinkApp.domain, {
      pasteboardHandoff: true,
      appClipBundleId: `${other.publishableKeys.ios.bundleId}.Clip`,
    });
    const otherLink = await deepLink(other);
    const page = await tap(other, `/${otherLink.key}`, UA.safariIos26);
    const clickId = clickIdOf(page.text);
    const handoff = /data-handoff="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&');
    expect(handoff).toBe(`http://${other.deepLinkApp.domain}:${new URL(t.edgeUrl).port}/${otherLink.key}?c=${clickId}`);
    // The app reads the pasteboard on first open and sends `c` as clickId.
    const opened = await app(other, 'ios').firstOpen({ clickId: new URL(handoff!).searchParams.get('c') });
    expect(opened.body.data).toMatchObject({
      matched: true,
      matchType: 'deterministic',
      deferredDeepLink: { linkId: otherLink.id },
    });
    // Android never gets the iOS hand-off.
    expect((await tap(other, `/${otherLink.key}`, UA.chromeAndroid)).text).not.toContain('data-handoff');

    // Provisioning validates: a malformed certificate fingerprint or scheme is refused, a good one normalised.
    await expect(configureApp(other.deepLinkApp.domain, { sha256CertFingerprints: ['AB:CD'] })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(configureApp(other.deepLinkApp.domain, { iosUrlScheme: 'https' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    const updated = await configureApp(other.deepLinkApp.domain, { sha256CertFingerprints: ['ab'.repeat(32)] });
    expect(updated.android?.sha256CertFingerprints).toEqual([Array(32).fill('AB').join(':')]);

    const aasa = await tap(other, '/.well-known/apple-app-site-association', UA.safariIos26);
    expect(JSON.parse(aasa.text).appclips).toEqual({ apps: [`ABCDE12345.${other.publishableKeys.ios.bundleId}.Clip`] });
  });
});
