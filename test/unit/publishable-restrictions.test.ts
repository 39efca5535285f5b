import { describe, expect, it } from 'vitest';
import type { PublishableRestrictions } from '@shared/auth/credential';
import { normalizeOrigin, restrictionFailure } from '@shared/auth/publishable-restrictions';

const key = (
  platform: PublishableRestrictions['platform'],
  extra: Partial<PublishableRestrictions> = {},
): PublishableRestrictions => ({
  environment: 'production',
  platform,
  origins: [],
  androidPackage: null,
  androidSha256Certs: [],
  iosBundleId: null,
  ...extra,
});

describe('publishable key restrictions', () => {
  it('normalizes origins: scheme, host and non-default port, lower case; anything else is no origin', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example.com/')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
    expect(normalizeOrigin('http://localhost:5173')).toBe('http://localhost:5173');
    expect(normalizeOrigin('null')).toBeUndefined();
    expect(normalizeOrigin('file:///x')).toBeUndefined();
    expect(normalizeOrigin(undefined)).toBeUndefined();
  });

  it('checks environment and platform only when the headers are sent', () => {
    expect(restrictionFailure(key('ios'), {})).toBeNull();
    expect(restrictionFailure(key('ios'), { environment: 'production', platform: 'IOS' })).toBeNull();
    expect(restrictionFailure(key('ios'), { environment: 'Production' })).toBe('environment');
    expect(restrictionFailure(key('ios'), { platform: 'browser' })).toBe('platform');
  });

  it('needs an allowed Origin for browser keys; a browser key without origins allows none', () => {
    const browser = key('browser', { origins: ['https://shop.example.com', 'http://localhost:5173'] });
    expect(restrictionFailure(browser, { origin: 'https://shop.example.com' })).toBeNull();
    expect(restrictionFailure(browser, { origin: 'http://localhost:5173' })).toBeNull();
    expect(restrictionFailure(browser, { origin: 'http://shop.example.com' })).toBe('origin');
    expect(restrictionFailure(browser, { origin: 'https://shop.example.com.evil.net' })).toBe('origin');
    expect(restrictionFailure(browser, {})).toBe('origin');
    expect(restrictionFailure(key('browser'), { origin: 'https://shop.example.com' })).toBe('origin');
  });

  it('checks Android package and certificates only when the key has them', () => {
    const cert = 'AA:BB:' + '01:'.repeat(29) + 'FF';
    const android = key('android', { androidPackage: 'com.acme', androidSha256Certs: [cert] });
    expect(
      restrictionFailure(android, {
        androidPackage: 'com.acme',
        androidSha256Cert: cert.replace(/:/g, '').toLowerCase(),
      }),
    ).toBeNull();
    expect(restrictionFailure(android, { androidSha256Cert: cert })).toBe('package');
    expect(restrictionFailure(android, { androidPackage: 'com.acme' })).toBe('certificate');
    expect(restrictionFailure(key('android'), {})).toBeNull();
    expect(
      restrictionFailure(key('android', { androidPackage: 'com.acme' }), { androidPackage: 'com.acme' }),
    ).toBeNull();
  });

  it('checks the iOS bundle id only when the key has one', () => {
    expect(restrictionFailure(key('ios', { iosBundleId: 'com.acme.app' }), { iosBundleId: 'com.acme.app' })).toBeNull();
    expect(restrictionFailure(key('ios', { iosBundleId: 'com.acme.app' }), { iosBundleId: 'com.acme.App' })).toBe(
      'bundle',
    );
    expect(restrictionFailure(key('ios', { iosBundleId: 'com.acme.app' }), {})).toBe('bundle');
  });
});
