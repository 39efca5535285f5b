import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseUserAgent } from '@shared/clicks/user-agent';
import { destinationFor } from '@shared/edge/destination';
import { decideOutcome } from '@shared/edge/edge-outcome';
import { COUNTRY_CODES, countryCodeOf } from '@shared/geo/country-codes';
import { applyLinkPatch } from '@shared/links/patch-link';
import type { LinkRecord } from '@shared/links/link-record';
import { toLinkResource } from '@shared/links/link-view';
import { toRedirectRecord, type RedirectRecord } from '@shared/links/redirect-record';
import { createLinkBodySchema, patchLinkBodySchema } from '@shared/schemas/link-schemas';

const link: LinkRecord = {
  id: 'lnk_1',
  workspaceId: 'ws_1',
  linkType: 'SHORTLINK',
  domainId: 'dom_1',
  domain: 'go.example.com',
  key: 'k',
  url: 'https://example.com/',
  title: 'T',
  desktopOverrideUrl: null,
  androidOverrideUrl: 'https://android.example/',
  iosOverrideUrl: null,
  expiresAt: null,
  expiredUrl: null,
  passwordHash: null,
  comments: null,
  objects: null,
  tags: [],
  tracking: { utmSource: 'geo' },
  socialPreview: null,
  geo: { DE: 'https://example.de/', FR: 'https://example.fr/?utm_source=kept' },
  deepLinkAppId: null,
  archived: false,
  clicks: 0,
  botClicks: 0,
  lastClicked: null,
  lastBotClickedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const parseGeo = (geo: unknown) => createLinkBodySchema.safeParse({ url: 'https://a.com', domain: 'x.com', geo });

describe('the geo schema', () => {
  it('upper-cases codes, keeps null, and names a bad code, URL, duplicate or size', () => {
    expect(parseGeo({ de: 'https://a.de', Us: 'https://a.us' }).data?.geo).toEqual({
      DE: 'https://a.de',
      US: 'https://a.us',
    });
    expect(parseGeo(null).data?.geo).toBeNull();
    const paths = (geo: unknown) => parseGeo(geo).error?.issues.map((i) => i.path.join('.'));
    expect(paths({ zz: 'https://a' })).toEqual(['geo.zz']);
    expect(paths({ UK: 'https://a' })).toEqual(['geo.UK']);
    expect(paths({ deu: 'https://a' })).toEqual(['geo.deu']);
    expect(paths({ de: 'javascript:alert(1)' })).toEqual(['geo.de']);
    expect(paths({ de: 'https://a', DE: 'https://b' })).toEqual(['geo.DE']);
    expect(paths([...COUNTRY_CODES].slice(0, 51).reduce((m, c) => ({ ...m, [c]: 'https://a' }), {}))).toEqual(['geo']);
    expect(paths('https://a')).toEqual(['geo']);
    expect(patchLinkBodySchema.safeParse({ geo: { fr: 'https://a.fr' } }).data?.geo).toEqual({ FR: 'https://a.fr' });
  });

  it('accepts every assigned code in any case and nothing else of two letters', () => {
    expect(COUNTRY_CODES.size).toBe(249);
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z]{2}$/), (code) => {
        expect(countryCodeOf(code) !== undefined).toBe(COUNTRY_CODES.has(code.toUpperCase()));
      }),
    );
  });
});

describe('destination order: platform override, geo[country], url; tracking on whichever wins', () => {
  const record = toRedirectRecord(link);
  it('orders the three', () => {
    expect(destinationFor(record, 'desktop', 'DE')).toBe('https://example.de/?utm_source=geo');
    expect(destinationFor(record, 'android', 'DE')).toBe('https://android.example/?utm_source=geo');
    expect(destinationFor(record, 'desktop', 'US')).toBe('https://example.com/?utm_source=geo');
    expect(destinationFor(record, 'desktop', null)).toBe('https://example.com/?utm_source=geo');
    expect(destinationFor(record, 'desktop', 'FR')).toBe('https://example.fr/?utm_source=kept');
  });
  it('treats slug items written before geo existed as having none, and ignores inherited keys', () => {
    const { geo: _geo, ...old } = record;
    expect(destinationFor(old as RedirectRecord, 'desktop', 'DE')).toBe('https://example.com/?utm_source=geo');
    expect(destinationFor({ ...record, geo: {} }, 'desktop', 'constructor')).toBe(
      'https://example.com/?utm_source=geo',
    );
  });
  it('is what the edge outcome redirects to', () => {
    const client = parseUserAgent(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    );
    const host = { expiredUrl: null, notFoundUrl: null };
    expect(decideOutcome({ host, record, client, unlocked: false, now: new Date(), country: 'DE' })).toEqual({
      kind: 'redirect',
      destination: 'https://example.de/?utm_source=geo',
    });
  });
});

describe('geo on the Link and in PATCH', () => {
  it('is null on links stored before it existed; PATCH replaces, null or {} clears, absent keeps', () => {
    const { geo: _geo, ...old } = link;
    expect(toLinkResource(old as LinkRecord).geo).toBeNull();
    const patch = (geo: unknown) =>
      applyLinkPatch(link, patchLinkBodySchema.parse(geo === undefined ? {} : { geo }), {}).geo;
    expect(patch({ us: 'https://a.us' })).toEqual({ US: 'https://a.us' });
    expect(patch(null)).toBeNull();
    expect(patch({})).toBeNull();
    expect(patch(undefined)).toEqual(link.geo);
  });
});
