import { beforeAll, describe, expect, it } from 'vitest';
import { LinkService, LinkServiceError } from '../../sdk/src/index';
import { startTestStack, type TestStack } from '@test/support/test-stack';

/** @linkservice/sdk against the local stack: real requests, no mocks. */
let t: TestStack;
let sdk: LinkService;
beforeAll(async () => {
  t = await startTestStack();
  sdk = new LinkService({ apiKey: t.tenantA.serverKey, baseUrl: `${t.baseUrl}/` });
  return () => t.stop();
});

/** The SDK with tenant A's iOS publishable key and the headers its restrictions ask for. */
const iosClient = () =>
  new LinkService({
    publishableKey: t.tenantA.publishableKeys.ios.key,
    headers: {
      'x-ios-bundle-id': t.tenantA.publishableKeys.ios.bundleId,
      'user-agent':
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
    },
    baseUrl: t.baseUrl,
  });

describe('@linkservice/sdk links', () => {
  it('creates, gets and lists links', async () => {
    const created = await sdk.links.create({ url: 'https://example.com/sdk', domain: t.tenantA.domain, key: 'sdk-1' });
    expect(created).toMatchObject({ url: 'https://example.com/sdk', domain: t.tenantA.domain, key: 'sdk-1' });
    expect(await sdk.links.get(created.id)).toEqual(created);
    const page = await sdk.links.list({ search: 'example.com/sdk', limit: 10 });
    expect(page.data.map((link) => link.id)).toEqual([created.id]);
    expect(page.requestId).toBeTruthy();
  });

  it('pages with the cursor', async () => {
    for (const key of ['sdk-page-a', 'sdk-page-b', 'sdk-page-c']) {
      await sdk.links.create({ url: `https://example.com/${key}`, domain: t.tenantA.domain, key });
    }
    const first = await sdk.links.list({ search: 'sdk-page', limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.pagination.nextCursor).toBeTruthy();
    const second = await sdk.links.list({ search: 'sdk-page', limit: 2, cursor: first.pagination.nextCursor ?? '' });
    expect([...first.data, ...second.data].map((link) => link.key).sort()).toEqual([
      'sdk-page-a',
      'sdk-page-b',
      'sdk-page-c',
    ]);
  });

  it('iterates every link across the pages with for await', async () => {
    const keys: string[] = [];
    for await (const link of sdk.links.list({ search: 'sdk-page', limit: 1 })) keys.push(link.key);
    expect(keys.sort()).toEqual(['sdk-page-a', 'sdk-page-b', 'sdk-page-c']);
  });

  it('a repeated create with the same idempotency key answers the first link, not a second one', async () => {
    const body = { url: 'https://example.com/sdk-idem', domain: t.tenantA.domain };
    const first = await sdk.links.create(body, { idempotencyKey: 'sdk-idem-1' });
    const again = await sdk.links.create(body, { idempotencyKey: 'sdk-idem-1' });
    expect(again.id).toBe(first.id);
    const other = await sdk.links.create(body);
    expect(other.id).not.toBe(first.id);
  });

  it('throws LinkServiceError with the envelope: status, code, message, details, requestId', async () => {
    const missing = await sdk.links.get('lnk_missing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(LinkServiceError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) });
    const taken = await sdk.links
      .create({ url: 'https://example.com/x', domain: t.tenantA.domain, key: 'sdk-1' })
      .catch((error: unknown) => error);
    expect(taken).toMatchObject({ status: 409, code: 'slug_taken' });
    const invalid = await sdk.links
      .create({ url: 'not a url', domain: t.tenantA.domain })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', details: expect.any(Array) });
    const unauthorized = new LinkService({ apiKey: 'sk_unknown', baseUrl: t.baseUrl });
    await expect(unauthorized.links.list()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe('@linkservice/sdk links: update, archive, bulk create, QR', () => {
  it('updates, archives and restores a link', async () => {
    const link = await sdk.links.create({ url: 'https://example.com/sdk-update', domain: t.tenantA.domain });
    const updated = await sdk.links.update(link.id, { title: 'Spring sale', url: 'https://example.com/sdk-updated' });
    expect(updated).toMatchObject({ id: link.id, title: 'Spring sale', url: 'https://example.com/sdk-updated' });
    const archived = await sdk.links.archive(link.id);
    expect(archived.archived).toBe(true);
    const archivedIds: string[] = [];
    for await (const item of sdk.links.list({ archived: true, search: 'sdk-updated' })) archivedIds.push(item.id);
    expect(archivedIds).toEqual([link.id]);
    expect((await sdk.links.update(link.id, { archived: false })).archived).toBe(false);
  });

  it('bulk-creates links, one result per item', async () => {
    const results = await sdk.links.bulkCreate({
      links: [
        { url: 'https://example.com/sdk-bulk-1', domain: t.tenantA.domain, key: 'sdk-bulk-1' },
        { url: 'https://example.com/sdk-bulk-2', domain: t.tenantA.domain, key: 'sdk-1' },
      ],
    });
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ success: true, data: { key: 'sdk-bulk-1' } });
    expect(results[1]).toMatchObject({ success: false, error: { code: 'slug_taken' } });
  });

  it('answers a QR code as an SVG or PNG Blob', async () => {
    const link = await sdk.links.create({ url: 'https://example.com/sdk-qr', domain: t.tenantA.domain });
    const svg = await sdk.links.qr(link.id);
    expect(svg.type).toContain('image/svg+xml');
    expect(await svg.text()).toContain('<svg');
    const png = await sdk.links.qr(link.id, { format: 'png', size: 128 });
    expect(png.type).toBe('image/png');
    expect([...new Uint8Array(await png.arrayBuffer()).slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
  });
});

describe('@linkservice/sdk deep links', () => {
  it('creates, gets, lists, updates, archives and draws a deep link', async () => {
    const deep = await sdk.deepLinks.create({ deepLinkAppId: t.tenantA.deepLinkApp.id, title: 'SDK deep' });
    expect(deep).toMatchObject({ linkType: 'DEEPLINK', title: 'SDK deep' });
    expect(await sdk.deepLinks.get(deep.id)).toEqual(deep);
    const ids: string[] = [];
    for await (const item of sdk.deepLinks.list({ limit: 1 })) ids.push(item.id);
    expect(ids).toContain(deep.id);
    expect((await sdk.deepLinks.update(deep.id, { comments: 'from the SDK' })).comments).toBe('from the SDK');
    expect(await (await sdk.deepLinks.qr(deep.id)).text()).toContain('<svg');
    expect((await sdk.deepLinks.archive(deep.id)).archived).toBe(true);
    await expect(sdk.deepLinks.get('lnk_unknown')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('@linkservice/sdk domains, analytics and audit log', () => {
  it('lists and gets domains', async () => {
    const domains: string[] = [];
    for await (const domain of sdk.domains.list()) domains.push(domain.domain);
    expect(domains).toContain(t.tenantA.domain);
    expect(await sdk.domains.get(t.tenantA.domainId)).toMatchObject({
      id: t.tenantA.domainId,
      domain: t.tenantA.domain,
    });
  });

  it('reads link analytics, deep-link app analytics and raw events', async () => {
    const link = await sdk.links.create({ url: 'https://example.com/sdk-analytics', domain: t.tenantA.domain });
    const clicked = await iosClient().client.click({ linkId: link.id });
    await t.idle();
    const analytics = await sdk.analytics.link(link.id, { range: '24h', traffic: 'all' });
    expect(analytics.summary.totalClicks).toBe(1);
    // The deep-link app's analytics take the app's own key.
    const app = new LinkService({ apiKey: t.tenantA.deepLinkApp.appKey, baseUrl: t.baseUrl });
    expect((await app.analytics.deepLinkApp({ range: '7d' })).summary.totalClicks).toBeTypeOf('number');
    await expect(sdk.analytics.deepLinkApp()).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    const clickIds: string[] = [];
    for await (const event of sdk.analytics.events({ range: '24h', eventType: 'click', limit: 1 })) {
      if (event.clickId !== undefined) clickIds.push(event.clickId);
    }
    expect(clickIds).toContain(clicked.clickId);
  });

  it('lists the audit log across pages', async () => {
    const link = await sdk.links.create({ url: 'https://example.com/sdk-audit', domain: t.tenantA.domain });
    await sdk.links.update(link.id, { title: 'audited' });
    const actions: string[] = [];
    for await (const entry of sdk.auditLog.list({ resourceId: link.id, limit: 1 })) actions.push(entry.action);
    expect(actions).toEqual(['link.updated', 'link.created']);
  });
});

describe('@linkservice/sdk client with a publishable key', () => {
  it('resolves a link and records a click', async () => {
    const link = await sdk.links.create({ url: 'https://example.com/sdk-client', domain: t.tenantA.domain });
    const client = iosClient();
    const resolved = await client.client.resolve({ linkId: link.id });
    expect(resolved).toMatchObject({ link: { linkId: link.id }, destinationUrl: 'https://example.com/sdk-client' });
    const clicked = await client.client.click({ shortLink: link.shortLink });
    expect(clicked).toBeTypeOf('object');
    await t.idle();
    await expect(sdk.client.resolve({ linkId: link.id })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });
});
