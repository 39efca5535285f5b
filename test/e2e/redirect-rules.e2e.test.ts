import { beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

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
const patch = (id: string, json: Record<string, unknown>) =>
  http(t.baseUrl, 'PATCH', `/v1/links/${id}`, { headers: server(), json });
/** One click, returned once the edge has recorded it (the recording follows the response). */
const click = async (key: string, headers: Record<string, string>, query = '') => {
  const res = await edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: `/${key}${query}`, headers });
  await t.idle();
  return res;
};
const clicksOf = async (linkId: string) =>
  (await readLakeEvents()).filter((e) => e.linkId === linkId && e.eventType === 'click');
const cookieOf = (res: { headers: Record<string, string | string[] | undefined> }): string | undefined => {
  const set = res.headers['set-cookie'];
  return (Array.isArray(set) ? set : set ? [set] : []).find((c) => c.startsWith('lv_vid='));
};

describe('rules and variants fields', () => {
  it('are null on a link without them, carry assigned ids, keep ids sent back, and null clears', async () => {
    const plain = await createLink({ url: 'https://example.com/plain' });
    expect(plain.rules).toBeNull();
    expect(plain.variants).toBeNull();

    const link = await createLink({
      url: 'https://example.com/home',
      rules: [
        { conditions: [{ type: 'country', value: 'de' }], url: 'https://example.com/de' },
        { id: 'office', conditions: [{ type: 'ip', value: '10.1.2.3/8' }], url: 'https://example.com/office' },
      ],
      variants: [
        { url: 'https://example.com/a', weight: 50 },
        { url: 'https://example.com/b', weight: 50 },
      ],
    });
    const [de, office] = link.rules;
    expect(de.id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(de.conditions).toEqual([{ type: 'country', value: 'DE' }]);
    expect(office).toEqual({
      id: 'office',
      conditions: [{ type: 'ip', value: '10.0.0.0/8' }],
      url: 'https://example.com/office',
    });
    expect(link.variants.map((v: { weight: number }) => v.weight)).toEqual([50, 50]);

    const got = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() });
    expect(got.body.data.rules).toEqual(link.rules);
    expect(got.body.data.variants).toEqual(link.variants);
    const listed = await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: server() });
    const inList = listed.body.data.find((l: { id: string }) => l.id === link.id);
    expect(inList.rules).toEqual(link.rules);

    // Reordered and sent back: the ids stay.
    const reordered = await patch(link.id, { rules: [office, de] });
    expect(reordered.status).toBe(200);
    expect(reordered.body.data.rules.map((r: { id: string }) => r.id)).toEqual(['office', de.id]);
    expect((await patch(link.id, { title: 'kept' })).body.data.rules).toEqual(reordered.body.data.rules);
    // The audit log names the changed fields.
    const audit = await http(t.baseUrl, 'GET', `/v1/audit-log?resourceId=${String(link.id)}&limit=10`, {
      headers: server(),
    });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data.map((e: { changedFields: string[] }) => e.changedFields)).toEqual([
      ['title'],
      ['rules'],
      [],
    ]);

    // A refused PATCH leaves the link unchanged.
    const refused = await patch(link.id, {
      title: 'not applied',
      rules: [office, de, { conditions: [{ type: 'ip', value: '10.0.0.0/33' }], url: 'https://example.com/x' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
    expect(refused.body.error.details).toEqual([
      { path: 'rules[2].conditions[0].value', message: expect.stringContaining('CIDR') },
    ]);
    const after = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() });
    expect(after.body.data.title).toBe('kept');
    expect(after.body.data.rules).toEqual(reordered.body.data.rules);

    const badVariants = await patch(link.id, {
      variants: [
        { url: 'https://example.com/a', weight: 60 },
        { url: 'https://example.com/b', weight: 50 },
      ],
    });
    expect(badVariants.status).toBe(400);
    expect(badVariants.body.error.details[0].path).toBe('variants');

    const cleared = await patch(link.id, { rules: null, variants: null });
    expect(cleared.body.data.rules).toBeNull();
    expect(cleared.body.data.variants).toBeNull();
  });

  it('bulk create and deep links take them too', async () => {
    const bulk = await http(t.baseUrl, 'POST', '/v1/links/bulk', {
      headers: server(),
      json: {
        links: [
          {
            url: 'https://example.com/bulk',
            domain: t.tenantA.domain,
            rules: [{ conditions: [{ type: 'device', value: 'ios' }], url: 'https://example.com/bulk-ios' }],
          },
          {
            url: 'https://example.com/bulk-bad',
            domain: t.tenantA.domain,
            rules: [{ conditions: [{ type: 'planet', value: 'mars' }], url: 'https://example.com/mars' }],
          },
        ],
      },
    });
    expect(bulk.status, bulk.text).toBeLessThan(300);
    const [made, failed] = bulk.body.data;
    const stored = await http(t.baseUrl, 'GET', `/v1/links/${String(made.data.id)}`, { headers: server() });
    expect(stored.body.data.rules).toEqual([
      {
        id: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
        conditions: [{ type: 'device', value: 'ios' }],
        url: 'https://example.com/bulk-ios',
      },
    ]);
    expect(failed.error.details[0].path).toBe('rules[0].conditions[0].type');

    const deep = await http(t.baseUrl, 'POST', '/v1/deep-links', {
      headers: server(),
      json: {
        deepLinkAppId: t.tenantA.deepLinkApp.id,
        url: 'https://example.com/app-web',
        rules: [{ conditions: [{ type: 'language', value: 'de' }], url: 'https://example.com/app-web-de' }],
      },
    });
    expect(deep.status, deep.text).toBe(201);
    expect(deep.body.data.rules[0].url).toBe('https://example.com/app-web-de');
    expect(deep.body.data.variants).toBeNull();
    // The launch view's web destination follows the rule.
    const launch = await edgeRequest(t.edgeUrl, {
      host: deep.body.data.domain,
      path: `/${String(deep.body.data.key)}`,
      headers: { 'user-agent': IPHONE, 'accept-language': 'de-DE,de;q=0.9' },
    });
    await t.idle();
    expect(launch.status).toBe(200);
    expect(launch.text).toContain('https://example.com/app-web-de');
    expect(launch.text).not.toContain('https://example.com/app-web"');
  });
});

describe('each condition on the edge', () => {
  it('language, query, ip (v4 and v6), country, device, after / before', async () => {
    const past = '2020-01-01T00:00:00Z';
    const future = '2999-01-01T00:00:00Z';
    const link = await createLink({
      url: 'https://example.com/default',
      tracking: { utmSource: 'rules' },
      rules: [
        { id: 'lang', conditions: [{ type: 'language', value: 'de' }], url: 'https://example.com/de' },
        { id: 'query', conditions: [{ type: 'query', param: 'ref', value: 'mail' }], url: 'https://example.com/mail' },
        { id: 'v4', conditions: [{ type: 'ip', value: '203.0.113.0/24' }], url: 'https://example.com/office' },
        { id: 'v6', conditions: [{ type: 'ip', value: '2001:db8:1::/48' }], url: 'https://example.com/office6' },
        { id: 'country', conditions: [{ type: 'country', value: 'FR' }], url: 'https://example.com/fr' },
        { id: 'android', conditions: [{ type: 'device', value: 'android' }], url: 'https://example.com/android' },
        {
          id: 'window',
          conditions: [
            { type: 'after', value: past },
            { type: 'before', value: future },
            { type: 'query', param: 'sale' },
          ],
          url: 'https://example.com/sale',
        },
        { id: 'expired', conditions: [{ type: 'before', value: past }], url: 'https://example.com/never' },
      ],
    });
    const at = (headers: Record<string, string>, query = '') =>
      click(link.key, { 'user-agent': DESKTOP, ...headers }, query).then((r) => r.headers.location);
    expect(await at({ 'accept-language': 'de-CH, en;q=0.8' })).toBe('https://example.com/de?utm_source=rules');
    expect(await at({ 'accept-language': 'en, de;q=0.9' })).toBe('https://example.com/default?utm_source=rules');
    expect(await at({}, '?ref=mail')).toBe('https://example.com/mail?utm_source=rules');
    expect(await at({}, '?ref=web')).toBe('https://example.com/default?utm_source=rules');
    expect(await at({ 'cloudfront-viewer-address': '203.0.113.9:443' })).toBe(
      'https://example.com/office?utm_source=rules',
    );
    expect(await at({ 'cloudfront-viewer-address': '2001:db8:1:2::5:443' })).toBe(
      'https://example.com/office6?utm_source=rules',
    );
    expect(await at({ 'cloudfront-viewer-address': '198.51.100.1:443' })).toBe(
      'https://example.com/default?utm_source=rules',
    );
    expect(await at({ 'cloudfront-viewer-country': 'FR' })).toBe('https://example.com/fr?utm_source=rules');
    expect(await at({ 'user-agent': ANDROID })).toBe('https://example.com/android?utm_source=rules');
    expect(await at({ 'user-agent': IPHONE })).toBe('https://example.com/default?utm_source=rules');
    expect(await at({}, '?sale')).toBe('https://example.com/sale?utm_source=rules');

    const events = await clicksOf(link.id);
    expect(events.map((e) => e.ruleId).sort()).toEqual(
      ['lang', null, 'query', null, 'v4', 'v6', null, 'country', 'android', null, 'window'].sort(),
    );
    expect(events.every((e) => e.variantId === null)).toBe(true);
  });
});

describe('the order on the edge: gates -> rules -> platform overrides -> geo -> variants -> url', () => {
  it('decides in that order; a variant sticks through the visitor cookie', async () => {
    const link = await createLink({
      url: 'https://example.com/url',
      iosOverrideUrl: 'https://example.com/ios',
      geo: { DE: 'https://example.com/geo-de' },
      rules: [{ id: 'ref', conditions: [{ type: 'query', param: 'ref' }], url: 'https://example.com/rule' }],
      variants: [
        { id: 'a', url: 'https://example.com/va', weight: 50 },
        { id: 'b', url: 'https://example.com/vb', weight: 50 },
      ],
    });
    const go = (headers: Record<string, string>, query = '') =>
      click(link.key, { 'user-agent': DESKTOP, ...headers }, query);
    expect((await go({ 'user-agent': IPHONE, 'cloudfront-viewer-country': 'DE' }, '?ref=x')).headers.location).toBe(
      'https://example.com/rule',
    );
    expect((await go({ 'user-agent': IPHONE, 'cloudfront-viewer-country': 'DE' })).headers.location).toBe(
      'https://example.com/ios',
    );
    expect((await go({ 'cloudfront-viewer-country': 'DE' })).headers.location).toBe('https://example.com/geo-de');

    const first = await go({ 'cloudfront-viewer-address': '192.0.2.44:1000' });
    const landed = first.headers.location;
    expect(['https://example.com/va', 'https://example.com/vb']).toContain(landed);
    const cookie = cookieOf(first);
    expect(cookie).toMatch(/^lv_vid=[0-9a-f]{32}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax/);
    const value = (cookie ?? '').split(';')[0] ?? '';
    // Another address with the cookie: same variant, no new cookie.
    const second = await go({ 'cloudfront-viewer-address': '192.0.2.99:1000', cookie: value });
    expect(second.headers.location).toBe(landed);
    expect(cookieOf(second)).toBeUndefined();
    // A rule, override or geo answer sets no cookie.
    expect(cookieOf(await go({ 'cloudfront-viewer-country': 'DE' }))).toBeUndefined();

    // Gates come first: a password-protected link shows its form whatever the rules say.
    const locked = await createLink({
      url: 'https://example.com/locked',
      password: 'pw',
      rules: [{ conditions: [{ type: 'query', param: 'ref' }], url: 'https://example.com/locked-rule' }],
    });
    const form = await click(locked.key, { 'user-agent': DESKTOP }, '?ref=x');
    expect(form.status).toBe(200);
    expect(form.headers.location).toBeUndefined();
    expect(form.text).not.toContain('locked-rule');

    const events = await clicksOf(link.id);
    const variantClicks = events.filter((e) => e.variantId !== null);
    expect(variantClicks).toHaveLength(2);
    expect(new Set(variantClicks.map((e) => e.variantId)).size).toBe(1);
    expect(events.filter((e) => e.ruleId === 'ref')).toHaveLength(1);
  });

  it('the client resolve and attribution/click answers use the same decision', async () => {
    const link = await createLink({
      url: 'https://example.com/c',
      rules: [{ id: 'de', conditions: [{ type: 'language', value: 'de' }], url: 'https://example.com/c-de' }],
    });
    const pk = t.tenantA.publishableKeys.browser;
    const headers = { 'x-publishable-key': pk.key, origin: pk.origin, 'user-agent': DESKTOP, 'accept-language': 'de' };
    const resolved = await http(t.baseUrl, 'POST', '/v1/client/resolve', { headers, json: { linkId: link.id } });
    expect(resolved.body.data.destinationUrl).toBe('https://example.com/c-de');
    const english = await http(t.baseUrl, 'POST', '/v1/client/resolve', {
      headers: { ...headers, 'accept-language': 'en' },
      json: { linkId: link.id },
    });
    expect(english.body.data.destinationUrl).toBe('https://example.com/c');
    const clicked = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
      headers,
      json: { linkId: link.id },
    });
    expect(clicked.body.data.destinationUrl).toBe('https://example.com/c-de');
    await t.idle();
    expect((await clicksOf(link.id)).map((e) => e.ruleId)).toEqual(['de']);
  });
});

describe('analytics by rule and variant', () => {
  it('ruleBreakdown and variantBreakdown count by id across a PATCH that reorders rules; the export has the ids', async () => {
    const link = await createLink({
      url: 'https://example.com/an',
      rules: [
        { id: 'r-de', conditions: [{ type: 'country', value: 'DE' }], url: 'https://example.com/an-de' },
        { id: 'r-ios', conditions: [{ type: 'device', value: 'ios' }], url: 'https://example.com/an-ios' },
      ],
      variants: [
        { id: 'v-a', url: 'https://example.com/an-a', weight: 50 },
        { id: 'v-b', url: 'https://example.com/an-b', weight: 50 },
      ],
    });
    await click(link.key, { 'user-agent': IPHONE, 'cloudfront-viewer-country': 'DE' }); // r-de (first)
    await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'DE' }); // r-de
    await click(link.key, { 'user-agent': DESKTOP, cookie: 'lv_vid=visitor-one-aaaaaaaa' }); // a variant
    const [de, ios] = link.rules;
    const reordered = await patch(link.id, { rules: [ios, { ...de, url: 'https://example.com/an-de2' }] });
    expect(reordered.status).toBe(200);
    await click(link.key, { 'user-agent': IPHONE, 'cloudfront-viewer-country': 'DE' }); // r-ios now first
    await click(link.key, { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'DE' }); // r-de
    await click(link.key, { 'user-agent': DESKTOP, cookie: 'lv_vid=visitor-one-aaaaaaaa' }); // same variant

    const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h&traffic=all`, {
      headers: server(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.ruleBreakdown).toEqual([
      { key: 'r-de', label: 'https://example.com/an-de2', count: 3, percentage: 75 },
      { key: 'r-ios', label: 'https://example.com/an-ios', count: 1, percentage: 25 },
    ]);
    const [variantRow] = res.body.data.variantBreakdown;
    expect(res.body.data.variantBreakdown).toHaveLength(1);
    expect(variantRow).toMatchObject({ count: 2, percentage: 100 });
    expect(['v-a', 'v-b']).toContain(variantRow.key);
    expect(variantRow.label).toBe(`https://example.com/an-${String(variantRow.key).slice(2)}`);

    const exported = await http(t.baseUrl, 'GET', '/v1/analytics/events?limit=100', { headers: server() });
    expect(exported.status, exported.text).toBe(200);
    const mine = exported.body.data.filter((e: { linkId?: string }) => e.linkId === link.id);
    expect(mine.map((e: { ruleId: string | null }) => e.ruleId).sort()).toEqual(
      ['r-de', 'r-de', 'r-de', 'r-ios', null, null].sort(),
    );
    expect(mine.filter((e: { variantId: string | null }) => e.variantId === variantRow.key)).toHaveLength(2);
  });

  it('counts conversions per variant: customer events carrying the click id of a click a variant decided', async () => {
    const link = await createLink({
      url: 'https://example.com/conv',
      variants: [
        { id: 'c-a', url: 'https://example.com/conv-a', weight: 50 },
        { id: 'c-b', url: 'https://example.com/conv-b', weight: 50 },
      ],
    });
    const pk = t.tenantA.publishableKeys.browser;
    const headers = { 'x-publishable-key': pk.key, origin: pk.origin, 'user-agent': DESKTOP };
    const clicked = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
      headers,
      json: { linkId: link.id },
    });
    expect(clicked.status, clicked.text).toBe(201);
    const events = await http(t.baseUrl, 'POST', '/v1/client/events', {
      headers,
      json: {
        events: [
          { name: 'purchase', linkId: link.id, clickId: clicked.body.data.clickId },
          { name: 'signup', linkId: link.id, clickId: clicked.body.data.clickId },
          { name: 'purchase', linkId: link.id },
        ],
      },
    });
    expect(events.status, events.text).toBeLessThan(300);
    await t.idle();
    const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${String(link.id)}?range=24h&traffic=all`, {
      headers: server(),
    });
    expect(res.status, res.text).toBe(200);
    const [row] = res.body.data.variantBreakdown;
    expect(res.body.data.variantBreakdown).toHaveLength(1);
    expect(clicked.body.data.destinationUrl).toBe(`https://example.com/conv-${String(row.key).slice(2)}`);
    expect(row).toMatchObject({
      count: 1,
      customerEvents: 2,
      customerEventBreakdown: [
        { key: 'purchase', label: 'purchase', count: 1, percentage: 50 },
        { key: 'signup', label: 'signup', count: 1, percentage: 50 },
      ],
    });
  });
});
