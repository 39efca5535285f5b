import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PASSWORD_ATTEMPTS } from '@shared/edge/password-attempts';
import { createShortLink } from '@shared/links/create-link';
import type { CreateLinkBody } from '@shared/schemas/link-schemas';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

/**
 * The local stack honours the deployed edge's headers: its front door (CloudFront's stand-in)
 * runs the deployed viewer-request function and adds the origin secret; the test plays
 * CloudFront's geolocation by sending CloudFront-Viewer-Country / -Address.
 */
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const shortLink = (body: Partial<CreateLinkBody> & { url: string }) =>
  createShortLink(t.tenantA.workspaceId, { domain: t.tenantA.domain, ...body }, TEST_ORIGIN);
/** One click, returned once the edge has recorded it (the recording follows the response). */
const click = async (
  key: string,
  viewer: { country?: string; address?: string },
  extra: Record<string, string> = {},
) => {
  const res = await edgeRequest(t.edgeUrl, {
    host: t.tenantA.domain,
    path: `/${key}`,
    headers: {
      'user-agent': DESKTOP,
      ...(viewer.country ? { 'cloudfront-viewer-country': viewer.country } : {}),
      ...(viewer.address ? { 'cloudfront-viewer-address': viewer.address } : {}),
      ...extra,
    },
  });
  await t.idle();
  return res;
};

describe('the local front door (same headers as CloudFront)', () => {
  it('clicks through to a geoBreakdown row per viewer country', async () => {
    const link = await shortLink({ url: 'https://example.com/geo' });
    expect((await click(link.key, { country: 'jp', address: '203.0.113.50:40001' })).status).toBe(302);
    expect((await click(link.key, { country: 'JP', address: '2001:db8::7:443' })).status).toBe(302);
    expect((await click(link.key, { country: 'BR', address: '198.51.100.9:5000' })).status).toBe(302);
    const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(res.status).toBe(200);
    const geo = (res.body.data.geoBreakdown as Array<{ key: string; count: number }>).map((r) => [r.key, r.count]);
    expect(geo).toEqual([
      ['JP', 2],
      ['BR', 1],
    ]);
    const events = (await readLakeEvents()).filter((e) => e.linkId === link.id);
    expect(events.map((e) => e.country).sort()).toEqual(['BR', 'JP', 'JP']);
  });

  it('takes the link domain from x-forwarded-host as the viewer-request function sets it (a client value is overwritten)', async () => {
    const link = await shortLink({ url: 'https://example.com/host' });
    const res = await click(link.key, {}, { 'x-forwarded-host': 'evil.example' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/host');
  });

  it('limits password tries per viewer address (CloudFront-Viewer-Address), not per CloudFront location', async () => {
    const link = await shortLink({ url: 'https://example.com/locked', password: 'right' });
    const post = (address: string, password: string) =>
      edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: `/${link.key}`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': DESKTOP,
          'cloudfront-viewer-address': address,
        },
        body: `password=${password}`,
      });
    for (let i = 0; i < MAX_PASSWORD_ATTEMPTS; i++)
      expect((await post('203.0.113.77:1000', `wrong${i}`)).status).toBe(401);
    expect((await post('203.0.113.77:2000', 'right')).status).toBe(429);
    // Another viewer behind the same (local) CloudFront address is not locked out.
    const other = await post('2001:db8::99:443', 'right');
    expect(other.status).toBe(303);
  });

  it('streams the edge answer (RESPONSE_STREAM: chunked, no content-length)', async () => {
    const link = await shortLink({ url: 'https://example.com/stream' });
    const res = await click(link.key, { country: 'DE' });
    expect(res.status).toBe(302);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
  });
});
