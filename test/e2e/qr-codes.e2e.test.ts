import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let shortLink: { id: string; shortLink: string };
let deepLink: { id: string; shortLink: string };
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const headers = { 'api-key': t.tenantA.serverKey };
  shortLink = (
    await http(t.baseUrl, 'POST', '/v1/links', {
      headers,
      json: { url: 'https://example.com/qr', domain: t.tenantA.domain, key: 'qr-code' },
    })
  ).body.data;
  deepLink = (
    await http(t.baseUrl, 'POST', '/v1/deep-links', { headers, json: { deepLinkAppId: t.tenantA.deepLinkApp.id } })
  ).body.data;
});

const qr = async (path: string, key = t.tenantA.serverKey) => {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { 'api-key': key, 'x-request-id': 'qr-req-1' } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
};

/** Decodes a PNG with a real QR reader (jsQR over pngjs's pixels). */
const decodePng = (bytes: Buffer) => {
  const png = PNG.sync.read(bytes);
  return { width: png.width, text: jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data };
};

describe('GET /v1/links/{linkId}/qr and /v1/deep-links/{linkId}/qr', () => {
  it('answers a PNG that decodes to the shortLink, at the asked size, cacheable by the browser', async () => {
    const res = await qr(`/v1/links/${shortLink.id}/qr?format=png&size=300&ecc=H&margin=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-request-id')).toBe('qr-req-1');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const decoded = decodePng(res.bytes);
    expect(decoded.text).toBe(shortLink.shortLink);
    expect(decoded.width).toBe(300);
  });

  it('draws with the asked colours and still decodes', async () => {
    const res = await qr(`/v1/links/${shortLink.id}/qr?format=png&color=%23102030&background=%23f0f0e0`);
    const png = PNG.sync.read(res.bytes);
    expect([png.data[0], png.data[1], png.data[2]]).toEqual([0xf0, 0xf0, 0xe0]);
    expect(decodePng(res.bytes).text).toBe(shortLink.shortLink);
  });

  it('answers SVG by default, for deep links too', async () => {
    const res = await qr(`/v1/deep-links/${deepLink.id}/qr`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    const svg = res.bytes.toString('utf8');
    expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('width="512"');
    const png = await qr(`/v1/deep-links/${deepLink.id}/qr?format=png`);
    expect(decodePng(png.bytes).text).toBe(deepLink.shortLink);
  });

  it('refuses a bad query with 400 in the JSON envelope naming the parameter', async () => {
    for (const [query, path] of [
      ['format=gif', 'format'],
      ['size=63', 'size'],
      ['size=2049', 'size'],
      ['size=abc', 'size'],
      ['margin=17', 'margin'],
      ['ecc=X', 'ecc'],
      ['color=red', 'color'],
      ['background=%23abc', 'background'],
    ]) {
      const res = await http(t.baseUrl, 'GET', `/v1/links/${shortLink.id}/qr?${query}`, {
        headers: { 'api-key': t.tenantA.serverKey },
      });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ path }] } });
    }
  });

  it('is 404 for an unknown id, the other link type, or another workspace', async () => {
    for (const [path, key] of [
      ['/v1/links/lnk_nope/qr', t.tenantA.serverKey],
      [`/v1/links/${deepLink.id}/qr`, t.tenantA.serverKey],
      [`/v1/deep-links/${shortLink.id}/qr`, t.tenantA.serverKey],
      [`/v1/links/${shortLink.id}/qr`, t.tenantB.serverKey],
    ] as const) {
      const res = await http(t.baseUrl, 'GET', path, { headers: { 'api-key': key } });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const noKey = await http(t.baseUrl, 'GET', `/v1/links/${shortLink.id}/qr`);
    expect(noKey.status).toBe(401);
  });
});
