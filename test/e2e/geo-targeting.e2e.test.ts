import { beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const server = () => ({ 'api-key': t.tenantA.serverKey });
const createLink = async (json: Record<string, unknown>) => {
  const res = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: server(),
    json: { domain: t.tenantA.domain, ...json },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
};
/** One click, returned once the edge has recorded it (the recording follows the response). */
const click = async (key: string, headers: Record<string, string>) => {
  const res = await edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: `/${key}`, headers });
  await t.idle();
  return res;
};
const clicksOf = async (linkId: string) =>
  (await readLakeEvents()).filter((e) => e.linkId === linkId && e.eventType === 'click');

describe('geo field', () => {
  it('is accepted in any case, returned upper-case, replaced by PATCH and cleared by null', async () => {
    const link = await createLink({
      url: 'https://example.com/geo',
      geo: { de: 'https://example.de/', Fr: 'https://example.fr/' },
    });
    expect(link.geo).toEqual({ DE: 'https://example.de/', FR: 'https://example.fr/' });
    expect((await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() })).body.data.geo).toEqual(
      link.geo,
    );

    const replaced = await http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, {
      headers: server(),
      json: { geo: { us: 'https://example.com/us' } },
    });
    expect(replaced.body.data.geo).toEqual({ US: 'https://example.com/us' });
    const kept = await http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, {
      headers: server(),
      json: { title: 'still geo' },
    });
    expect(kept.body.data.geo).toEqual({ US: 'https://example.com/us' });
    const cleared = await http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, { headers: server(), json: { geo: null } });
    expect(cleared.body.data.geo).toBeNull();
    expect((await createLink({ url: 'https://example.com/nogeo' })).geo).toBeNull();
  });

  it('refuses an unknown code naming geo.<code>, bad URLs, and more than 50 entries, creating nothing', async () => {
    const bad = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: {
        url: 'https://example.com/x',
        domain: t.tenantA.domain,
        key: 'geo-bad',
        geo: { zz: 'https://example.com/zz' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details).toEqual([{ path: 'geo.zz', message: expect.stringContaining('ISO 3166-1') }]);
    const badUrl = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://example.com/x', domain: t.tenantA.domain, geo: { DE: 'javascript:alert(1)' } },
    });
    expect(badUrl.body.error.details[0].path).toBe('geo.DE');
    const codes = [
      'AD',
      'AE',
      'AF',
      'AG',
      'AI',
      'AL',
      'AM',
      'AO',
      'AQ',
      'AR',
      'AS',
      'AT',
      'AU',
      'AW',
      'AX',
      'AZ',
      'BA',
      'BB',
      'BD',
      'BE',
      'BF',
      'BG',
      'BH',
      'BI',
      'BJ',
      'BL',
      'BM',
      'BN',
      'BO',
      'BQ',
      'BR',
      'BS',
      'BT',
      'BV',
      'BW',
      'BY',
      'BZ',
      'CA',
      'CC',
      'CD',
      'CF',
      'CG',
      'CH',
      'CI',
      'CK',
      'CL',
      'CM',
      'CN',
      'CO',
      'CR',
      'CU',
    ];
    const tooMany = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: {
        url: 'https://example.com/x',
        domain: t.tenantA.domain,
        geo: Object.fromEntries(codes.map((c) => [c, `https://example.com/${c}`])),
      },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].path).toBe('geo');
    const patched = await createLink({ url: 'https://example.com/p' });
    const badPatch = await http(t.baseUrl, 'PATCH', `/v1/links/${patched.id}`, {
      headers: server(),
      json: { geo: { xx: 'https://a.com' } },
    });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.details[0].path).toBe('geo.xx');
    expect((await http(t.baseUrl, 'GET', '/v1/links?search=geo-bad', { headers: server() })).body.data).toEqual([]);
  });
});

describe('geo on the edge (CloudFront-Viewer-Country)', () => {
  it('goes to geo[country] with the tracking parameters, else url; the platform override wins; the event has the URL used', async () => {
    const link = await createLink({
      url: 'https://example.com/home',
      geo: { DE: 'https://example.de/start', FR: 'https://example.fr/start' },
      iosOverrideUrl: 'https://apps.example.com/ios',
      tracking: { utmSource: 'geo-test' },
    });
    const de = await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'DE' });
    expect(de.status).toBe(302);
    expect(de.headers.location).toBe('https://example.de/start?utm_source=geo-test');
    const lower = await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'fr' });
    expect(lower.headers.location).toBe('https://example.fr/start?utm_source=geo-test');
    const us = await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'US' });
    expect(us.headers.location).toBe('https://example.com/home?utm_source=geo-test');
    const none = await click(link.key, { 'user-agent': DESKTOP });
    expect(none.headers.location).toBe('https://example.com/home?utm_source=geo-test');
    const ios = await click(link.key, { 'user-agent': IPHONE, 'cloudfront-viewer-country': 'DE' });
    expect(ios.headers.location).toBe('https://apps.example.com/ios?utm_source=geo-test');

    const events = await clicksOf(link.id);
    expect(events.map((e) => [e.country ?? null, e.resolvedDestinationUrl])).toEqual(
      expect.arrayContaining([
        ['DE', 'https://example.de/start?utm_source=geo-test'],
        ['FR', 'https://example.fr/start?utm_source=geo-test'],
        ['US', 'https://example.com/home?utm_source=geo-test'],
        [null, 'https://example.com/home?utm_source=geo-test'],
        ['DE', 'https://apps.example.com/ios?utm_source=geo-test'],
      ]),
    );
    expect(events).toHaveLength(5);
  });

  it('the client click API and resolve answer destinationUrl with the edge rules; the recorded country stays trusted-only', async () => {
    const link = await createLink({ url: 'https://example.com/c', geo: { JP: 'https://example.jp/c' } });
    const pk = t.tenantA.publishableKeys.browser;
    const headers = {
      'x-publishable-key': pk.key,
      origin: pk.origin,
      'user-agent': DESKTOP,
      'cloudfront-viewer-country': 'JP',
    };
    const edge = await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'JP' });
    expect(edge.headers.location).toBe('https://example.jp/c');
    // The service API is not behind the front door: the header chooses the destination (a hint:
    // every geo URL is a public destination of the link) but is never recorded as the country.
    const resolved = await http(t.baseUrl, 'POST', '/v1/client/resolve', { headers, json: { linkId: link.id } });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data.destinationUrl).toBe('https://example.jp/c');
    const clicked = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
      headers,
      json: { shortLink: link.shortLink },
    });
    expect(clicked.status).toBe(201);
    expect(clicked.body.data.destinationUrl).toBe('https://example.jp/c');
    const noHeader = await http(t.baseUrl, 'POST', '/v1/client/resolve', {
      headers: { ...headers, 'cloudfront-viewer-country': '' },
      json: { linkId: link.id },
    });
    expect(noHeader.body.data.destinationUrl).toBe('https://example.com/c');
    const events = await clicksOf(link.id);
    // The edge click's country is trusted (through the local front door); the client click's is not recorded.
    expect(events.map((e) => [e.country ?? null, e.resolvedDestinationUrl])).toEqual(
      expect.arrayContaining([
        ['JP', 'https://example.jp/c'],
        [null, 'https://example.jp/c'],
      ]),
    );
    expect(events).toHaveLength(2);

    // Behind a password the destination stays hidden from publishable keys: the short link instead.
    const locked = await createLink({
      url: 'https://example.com/locked',
      geo: { JP: 'https://example.jp/locked' },
      password: 'pw',
    });
    const lockedResolve = await http(t.baseUrl, 'POST', '/v1/client/resolve', { headers, json: { linkId: locked.id } });
    expect(lockedResolve.body.data.destinationUrl).toBe(locked.shortLink);
    const lockedClick = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
      headers,
      json: { linkId: locked.id },
    });
    expect(lockedClick.body.data.destinationUrl).toBe(locked.shortLink);
    expect(lockedClick.text).not.toContain('example.jp');
  });
});
