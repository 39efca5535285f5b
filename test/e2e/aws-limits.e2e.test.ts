import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => {
  await t?.stop();
});

const create = (json: Record<string, unknown>) =>
  http(t.baseUrl, 'POST', '/v1/links', { headers: { 'api-key': t.tenantA.serverKey }, json: { domain: t.tenantA.domain, ...json } });

describe('Location headers carry serialized URLs', () => {
  it('a non-ASCII destination (path, query, fragment, IDN host) redirects with its percent-encoded href', async () => {
    const made = await create({ url: 'https://bücher.example/中文/ü?q=äö#frag-é', key: 'non-ascii' });
    expect(made.status).toBe(201);
    const res = await edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: '/non-ascii', headers: { 'user-agent': IPHONE_UA } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://xn--bcher-kva.example/%E4%B8%AD%E6%96%87/%C3%BC?q=%C3%A4%C3%B6#frag-%C3%A9');
  });

  it("an expired link's non-ASCII expired URL redirects with its href", async () => {
    const made = await create({ url: 'https://example.com/ok', key: 'gone-non-ascii', expiresAt: '2020-01-01T00:00:00Z', expiredUrl: 'https://example.com/abgelaufen/ß' });
    expect(made.status).toBe(201);
    const res = await edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: '/gone-non-ascii', headers: { 'user-agent': IPHONE_UA } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/abgelaufen/%C3%9F');
  });
});
