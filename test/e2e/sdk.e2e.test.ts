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
