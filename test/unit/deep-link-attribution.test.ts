import { describe, expect, it } from 'vitest';
import { networkOf } from '@shared/attribution/fingerprint';
import { toClientLinkPayload } from '@shared/attribution/client-link';
import { isMatchGuaranteed } from '@shared/attribution/match-attribution';
import { launchViewPage } from '@shared/edge/html/launch-view-page';
import {
  normalizeSha256Fingerprint,
  normalizeSha256FingerprintsOrThrow,
  urlSchemeOrThrow,
} from '@shared/tenancy/app-settings';

describe('fingerprint network', () => {
  it('keeps IPv4 whole and reduces IPv6 to its /64, whatever the notation', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113.7');
    expect(networkOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    const expected = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2:aaaa:bbbb:cccc:dddd',
      '2001:0DB8:0001:0002::1',
      '[2001:db8:1:2::5]',
      '2001:db8:1:2:0:0:0:0',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::1'),
    ]) {
      expect(networkOf(ip)).toBe(expected);
    }
    expect(networkOf('2001:db8:1:2::')).toBe(expected);
    expect(networkOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('::FFFF:c000:0201')).toBe('192.0.2.1');
    expect(networkOf('1.2.3')).toBeNull();
    expect(networkOf('2001:db8::1::2')).toBeNull();
    expect(networkOf('not an ip')).toBeNull();
    expect(networkOf('')).toBeNull();
  });
});

describe('client payloads and matches', () => {
  const link = {
    linkId: 'lnk_1',
    linkType: 'DEEPLINK' as const,
    deepLinkAppId: 'app_1',
    domain: 'app.example.com',
    key: 'k',
    url: 'https://secret.example.com/x',
  };
  it('never gives a password-protected destination to a publishable key', () => {
    expect(toClientLinkPayload({ ...link, passwordHash: 'scrypt$...' })).toEqual({
      ...link,
      shortLink: 'https://app.example.com/k',
      url: 'https://app.example.com/k',
      passwordProtected: true,
    });
    expect(toClientLinkPayload({ ...link, passwordHash: null })).toMatchObject({
      url: link.url,
      passwordProtected: false,
    });
  });

  it('guarantees only deterministic matches', () => {
    expect(isMatchGuaranteed('deterministic')).toBe(true);
    expect(isMatchGuaranteed('probabilistic')).toBe(false);
    expect(isMatchGuaranteed(null)).toBe(false);
  });
});

describe('app settings', () => {
  it('normalises Android certificate fingerprints to upper-case colon-separated and refuses anything else', () => {
    const colon = Array(32).fill('AB').join(':');
    expect(normalizeSha256Fingerprint('ab'.repeat(32))).toBe(colon);
    expect(normalizeSha256Fingerprint(colon.toLowerCase())).toBe(colon);
    expect(normalizeSha256Fingerprint(' ' + colon + ' ')).toBe(colon);
    expect(normalizeSha256Fingerprint('AB:CD')).toBeNull();
    expect(normalizeSha256Fingerprint('zz'.repeat(32))).toBeNull();
    expect(normalizeSha256FingerprintsOrThrow([colon, 'ab'.repeat(32)])).toEqual([colon]);
    expect(() => normalizeSha256FingerprintsOrThrow(['AB:CD'])).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => normalizeSha256FingerprintsOrThrow([])).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('accepts custom URL schemes only', () => {
    expect(urlSchemeOrThrow('MyApp', 'iosUrlScheme')).toBe('myapp');
    expect(urlSchemeOrThrow('com.example.app://', 'iosUrlScheme')).toBe('com.example.app');
    for (const bad of ['https', 'intent', 'javascript', '1app', 'my app', '']) {
      expect(() => urlSchemeOrThrow(bad, 'iosUrlScheme')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });
});

describe('launch view page', () => {
  const base = {
    heading: 'Spring sale',
    appName: 'Demo <app>',
    key: 'k',
    clickId: '0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1d',
    platform: 'ios' as const,
    openUrl: 'https://open.app.example.com/k?c=0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1d',
    destination: 'https://example.com/d',
    inAppBrowser: null,
    handoff: null,
  };
  it('attempts nothing by itself: plain links, no timer, no script navigation', () => {
    const body = launchViewPage(base).body!;
    expect(body).not.toMatch(/setTimeout|setInterval|location\.|http-equiv/);
    expect(body).toContain('href="https://open.app.example.com/k?c=0b6c1f43-8a0e-4b5e-9d53-6f7c8a9b0c1d"');
    expect(body).not.toContain('data-handoff');
    expect(body).not.toContain('id="hint"');
  });

  it('adds the in-app browser hint and the hand-off when asked, escaped', () => {
    const body = launchViewPage({
      ...base,
      inAppBrowser: 'Instagram',
      handoff: 'https://app.example.com/k?c=x&y',
    }).body!;
    expect(body).toContain('open this page in Safari (the Instagram menu');
    expect(body).toContain('data-handoff="https://app.example.com/k?c=x&amp;y"');
    expect(body).toContain('Demo &lt;app&gt;');
    expect(launchViewPage({ ...base, platform: 'android', inAppBrowser: 'TikTok' }).body).toContain(
      'open this page in Chrome',
    );
  });
});
