import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseUserAgent } from '@shared/clicks/user-agent';
import {
  alternateOrigin,
  appleAppSiteAssociation,
  assetLinks,
  openInAppUrl,
  playStoreUrlWithReferrer,
} from '@shared/edge/app-links';
import { destinationFor, withTracking } from '@shared/edge/destination';
import { decideOutcome } from '@shared/edge/edge-outcome';
import { parseEdgeRequest } from '@shared/edge/edge-request';
import { escapeHtml } from '@shared/edge/html/escape';
import { edgeHandler } from '@shared/http/edge-handler';
import { markThroughFrontDoor } from '@shared/http/trusted-viewer';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { redirectRecord } from '@test/support/redirect-record';

const record = redirectRecord;
const human = parseUserAgent(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
);
const iphone = parseUserAgent(
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
);
const bot = parseUserAgent('Twitterbot/1.0');
const noFallbacks: { expiredUrl: string | null; notFoundUrl: string | null } = { expiredUrl: null, notFoundUrl: null };
const now = new Date('2026-01-01T00:00:00Z');

describe('edge outcome rules', () => {
  it('applies not-found, expired, password, bot, launch view and redirect in order', () => {
    const decide = (r: RedirectRecord | undefined, client = human, unlocked = false, host = noFallbacks) =>
      decideOutcome({ host, record: r, client, unlocked, now });
    expect(decide(undefined)).toEqual({ kind: 'not_found', location: null });
    expect(
      decide(record({ archived: true }), human, false, { expiredUrl: null, notFoundUrl: 'https://nf.example' }),
    ).toEqual({ kind: 'not_found', location: 'https://nf.example' });
    const expired = record({ expiresAt: '2025-12-31T23:59:59Z', passwordHash: 'x' });
    expect(decide(expired)).toEqual({ kind: 'expired', location: null });
    expect(decide(expired, human, false, { expiredUrl: 'https://d.example', notFoundUrl: null })).toEqual({
      kind: 'expired',
      location: 'https://d.example',
    });
    expect(
      decide({ ...expired, expiredUrl: 'https://l.example' }, human, false, {
        expiredUrl: 'https://d.example',
        notFoundUrl: null,
      }).kind,
    ).toBe('expired');
    expect(
      decide({ ...expired, expiredUrl: 'https://l.example' }, human, false, {
        expiredUrl: 'https://d.example',
        notFoundUrl: null,
      }),
    ).toMatchObject({ location: 'https://l.example' });
    expect(decide(record({ expiresAt: '2026-01-01T00:00:01Z' })).kind).toBe('redirect');
    expect(decide(record({ passwordHash: 'x' }), bot).kind).toBe('password');
    expect(decide(record({ passwordHash: 'x' }), human, true).kind).toBe('redirect');
    expect(decide(record(), bot).kind).toBe('preview');
    expect(decide(record({ linkType: 'DEEPLINK' }), iphone).kind).toBe('launch_view');
    expect(decide(record({ linkType: 'DEEPLINK' }), human).kind).toBe('redirect');
  });

  it('picks the platform override, else the url', () => {
    const r = record({ iosOverrideUrl: 'https://ios.example/', desktopOverrideUrl: null });
    expect(destinationFor(r, 'ios')).toBe('https://ios.example/');
    expect(destinationFor(r, 'desktop')).toBe('https://example.com/a');
    expect(destinationFor(r, 'other')).toBe('https://example.com/a');
  });
});

describe('tracking parameters', () => {
  it('adds only missing parameters and keeps every existing one', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('a', 'utm_source', 'utm_medium', 'b'), fc.string({ maxLength: 5 }), {
          maxKeys: 4,
        }),
        fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: null }),
        (existing, source) => {
          const url = new URL('https://example.com/p');
          for (const [k, v] of Object.entries(existing)) url.searchParams.append(k, v);
          const out = new URL(withTracking(url.toString(), { utmSource: source, utmMedium: 'm' }));
          for (const [k, v] of Object.entries(existing)) expect(out.searchParams.get(k)).toBe(v);
          expect(out.searchParams.get('utm_medium')).toBe('utm_medium' in existing ? existing.utm_medium : 'm');
          if (!('utm_source' in existing)) expect(out.searchParams.get('utm_source')).toBe(source);
        },
      ),
    );
  });

  it('leaves the URL untouched without tracking values', () => {
    expect(withTracking('https://example.com/p?x=1#frag', null)).toBe('https://example.com/p?x=1#frag');
    expect(withTracking('https://example.com/p?x=1', { utmSource: '' })).toBe('https://example.com/p?x=1');
    expect(withTracking('https://example.com/p#frag', { ref: 'r' })).toBe('https://example.com/p?ref=r#frag');
  });
});

describe('HTML escaping', () => {
  it('never lets markup or quotes through', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(escapeHtml(s)).not.toMatch(/[<>"'`]/);
        expect(escapeHtml(s).replace(/&(amp|lt|gt|quot|#39|#96);/g, '')).not.toContain('&');
      }),
    );
  });
});

describe('app links', () => {
  const app: DeepLinkAppRecord = {
    id: 'app_1',
    workspaceId: 'ws_1',
    name: 'App',
    domainId: 'dom_2',
    domain: 'app.example.com',
    defaultUrl: 'https://example.com',
    ios: { teamId: 'TEAM123456', bundleId: 'com.example.app', appStoreUrl: null },
    android: { packageName: 'com.example.app', sha256CertFingerprints: ['AA:BB'], playStoreUrl: null },
    createdAt: '',
    updatedAt: '',
  };

  it('generates AASA and assetlinks from the app configuration, nothing for a missing platform', () => {
    expect(appleAppSiteAssociation(app)?.applinks.details[0]?.appIDs).toEqual(['TEAM123456.com.example.app']);
    expect(assetLinks(app)?.[0]?.target).toEqual({
      namespace: 'android_app',
      package_name: 'com.example.app',
      sha256_cert_fingerprints: ['AA:BB'],
    });
    expect(appleAppSiteAssociation({ ...app, ios: null })).toBeNull();
    expect(assetLinks({ ...app, android: null })).toBeNull();
  });

  it('serves Android fingerprints normalised and adds the App Clip section when the app has one', () => {
    const hex = 'ab'.repeat(32);
    const android = { ...app.android!, sha256CertFingerprints: [hex, hex.match(/../g)!.join(':').toUpperCase()] };
    expect(assetLinks({ ...app, android })?.[0]?.target.sha256_cert_fingerprints).toEqual([
      Array(32).fill('AB').join(':'),
    ]);
    expect(appleAppSiteAssociation(app)).not.toHaveProperty('appclips');
    expect(
      appleAppSiteAssociation({ ...app, ios: { ...app.ios!, appClipBundleId: 'com.example.app.Clip' } })?.appclips,
    ).toEqual({ apps: ['TEAM123456.com.example.app.Clip'] });
  });

  it('opens iOS through the alternate host and Android through an intent, both with the click id', () => {
    expect(alternateOrigin('https://app.example.com')).toBe('https://open.app.example.com');
    const common = {
      origin: 'https://app.example.com',
      key: 'k1',
      clickId: 'c-1',
      app,
      destination: 'https://example.com/d',
      inAppBrowser: false,
    };
    expect(openInAppUrl({ ...common, platform: 'ios' })).toBe('https://open.app.example.com/k1?c=c-1');
    expect(openInAppUrl({ ...common, platform: 'android' })).toBe(
      'intent://app.example.com/k1?c=c-1#Intent;scheme=https;package=com.example.app;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fd;end',
    );
  });

  it('falls back to the Play Store with the install referrer holding the click id (and the utm fields)', () => {
    const store = 'https://play.google.com/store/apps/details?id=com.example.app';
    const url = playStoreUrlWithReferrer(store, 'c-1', { utmSource: 'news', utmCampaign: 'spring' });
    expect(url).toBe(`${store}&referrer=click_id%3Dc-1%26utm_source%3Dnews%26utm_campaign%3Dspring`);
    expect(new URLSearchParams(new URL(url!).searchParams.get('referrer')!).get('click_id')).toBe('c-1');
    const withStore = { ...app, android: { ...app.android!, playStoreUrl: store } };
    const intent = openInAppUrl({
      origin: 'https://app.example.com',
      key: 'k1',
      clickId: 'c-1',
      app: withStore,
      destination: 'https://example.com/d',
      inAppBrowser: false,
      platform: 'android',
    });
    expect(decodeURIComponent(/S\.browser_fallback_url=([^;]+);/.exec(intent)![1]!)).toBe(
      playStoreUrlWithReferrer(store, 'c-1'),
    );
    expect(playStoreUrlWithReferrer(null, 'c-1')).toBeNull();
  });

  it('uses the custom URL schemes in in-app browsers', () => {
    const schemed = {
      ...app,
      ios: { ...app.ios!, urlScheme: 'myapp' },
      android: { ...app.android!, urlScheme: 'myapp' },
    };
    const common = {
      origin: 'https://app.example.com:8443',
      key: 'k1',
      clickId: 'c-1',
      app: schemed,
      destination: 'https://example.com/d',
      inAppBrowser: true,
    };
    expect(openInAppUrl({ ...common, platform: 'ios' })).toBe('myapp://app.example.com/k1?c=c-1');
    expect(openInAppUrl({ ...common, platform: 'android' })).toMatch(
      /^intent:\/\/app\.example\.com\/k1\?c=c-1#Intent;scheme=myapp;package=com\.example\.app;/,
    );
    // Without a scheme, in-app browsers get the universal / app link like any browser.
    expect(openInAppUrl({ ...common, app, platform: 'ios' })).toBe('https://open.app.example.com:8443/k1?c=c-1');
  });
});

const event = (headers: Record<string, string>, rawQueryString = ''): ApiEvent =>
  ({
    headers,
    rawQueryString,
    pathParameters: { key: 'k' },
    requestContext: { http: { method: 'GET', sourceIp: '1.2.3.4' }, domainName: 'x' },
  }) as unknown as ApiEvent;

describe('edge request parsing and the handler factory', () => {
  it('reads host, scheme, country and referrer; CDN headers only through the front door', () => {
    const headers = {
      host: 'abc.lambda-url.us-east-1.on.aws',
      'x-forwarded-host': 'Go.Example.com:8443',
      'x-forwarded-proto': 'https',
      'cloudfront-viewer-country': 'fr',
      'cloudfront-viewer-address': '2001:db8::1:443',
      referer: 'https://t.co/x',
    };
    const trusted = event(headers);
    markThroughFrontDoor(trusted);
    expect(parseEdgeRequest(trusted)).toMatchObject({
      hostname: 'go.example.com',
      origin: 'https://go.example.com:8443',
      country: 'FR',
      referrer: 'https://t.co/x',
      ip: '2001:db8::1',
      key: 'k',
    });
    // The same headers straight from a client: its own Host, its TCP address, no country.
    expect(parseEdgeRequest(event(headers))).toMatchObject({
      hostname: 'abc.lambda-url.us-east-1.on.aws',
      country: null,
      ip: '1.2.3.4',
    });
    const bad = event({ host: 'a.localhost', 'cloudfront-viewer-country': 'XYZ' });
    markThroughFrontDoor(bad);
    expect(parseEdgeRequest(bad).country).toBeNull();
    expect(parseEdgeRequest(event({ host: 'a.localhost' })).origin).toBe('http://a.localhost');
  });

  it('turns any failure into a plain 500 page with the request id and no internals', async () => {
    const handler = edgeHandler(() => Promise.reject(new Error('secret internals at /var/task/x.js')));
    const res = await handler(event({ host: 'a.localhost', 'x-request-id': 'rid-1' }), {} as ApiContext);
    expect(res.statusCode).toBe(500);
    expect(res.headers?.['Content-Type']).toMatch(/^text\/html/);
    expect(res.headers?.['X-Request-Id']).toBe('rid-1');
    expect(res.body).not.toContain('secret internals');
    expect(res.body).toContain('Something went wrong');
  });
});
