import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { createShortLink } from '@shared/links/create-link';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { IPHONE_UA } from '@test/reliability/route-cases';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

describe('domain fallback URLs (set by provisioning)', () => {
  it('are stored on the domain and its host record, shown by GET /v1/domains/{id}, and used by the edge', async () => {
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
    await domainRepository.setFallbackUrls(domain, {
      expiredUrl: 'https://example.com/expired',
      notFoundUrl: 'https://example.com/missing',
    });

    const shown = await http(t.baseUrl, 'GET', `/v1/domains/${tenant.domainId}`, {
      headers: { 'api-key': tenant.serverKey },
    });
    expect(shown.body.data).toMatchObject({
      expiredUrl: 'https://example.com/expired',
      notFoundUrl: 'https://example.com/missing',
    });
    expect(await domainRepository.findHost(domain.domain)).toMatchObject({
      expiredUrl: 'https://example.com/expired',
      notFoundUrl: 'https://example.com/missing',
    });

    const missing = await edgeRequest(t.edgeUrl, {
      host: domain.domain,
      path: '/no-such-key',
      headers: { 'user-agent': IPHONE_UA },
    });
    expect(missing.status).toBe(302);
    expect(missing.headers.location).toBe('https://example.com/missing');
    const expired = await createShortLink(
      tenant.workspaceId,
      {
        url: 'https://example.com/live',
        domain: domain.domain,
        expiresAt: '2020-01-01T00:00:00Z',
      },
      TEST_ORIGIN,
    );
    const old = await edgeRequest(t.edgeUrl, {
      host: domain.domain,
      path: `/${expired.key}`,
      headers: { 'user-agent': IPHONE_UA },
    });
    expect(old.status).toBe(302);
    expect(old.headers.location).toBe('https://example.com/expired');

    await domainRepository.setFallbackUrls(domain, { expiredUrl: null, notFoundUrl: null });
    expect(await domainRepository.findHost(domain.domain)).toMatchObject({ expiredUrl: null, notFoundUrl: null });
  });
});
