import { beforeAll, describe, expect, it } from 'vitest';
import { linkRepository } from '@shared/links/link-repository';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const create = (json: Record<string, unknown>) =>
  http(t.baseUrl, 'POST', '/v1/links', {
    headers: { 'api-key': t.tenantA.serverKey },
    json: { domain: t.tenantA.domain, ...json },
  });

describe('Location headers carry serialized URLs', () => {
  it('a non-ASCII destination (path, query, fragment, IDN host) redirects with its percent-encoded href', async () => {
    const made = await create({ url: 'https://bücher.example/中文/ü?q=äö#frag-é', key: 'non-ascii' });
    expect(made.status).toBe(201);
    const res = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: '/non-ascii',
      headers: { 'user-agent': IPHONE_UA },
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(
      'https://xn--bcher-kva.example/%E4%B8%AD%E6%96%87/%C3%BC?q=%C3%A4%C3%B6#frag-%C3%A9',
    );
  });

  it("an expired link's non-ASCII expired URL redirects with its href", async () => {
    const made = await create({
      url: 'https://example.com/ok',
      key: 'gone-non-ascii',
      expiresAt: '2020-01-01T00:00:00Z',
      expiredUrl: 'https://example.com/abgelaufen/ß',
    });
    expect(made.status).toBe(201);
    const res = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: '/gone-non-ascii',
      headers: { 'user-agent': IPHONE_UA },
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/abgelaufen/%C3%9F');
  });
});

describe('URLs are normalised on write', () => {
  const NORMALISED = 'https://xn--bcher-kva.example/%E4%B8%AD%E6%96%87/%C3%BC?q=%C3%A4%C3%B6&p=%25zz#frag-%C3%A9';

  it('stores and answers the standard serialisation (punycode host, UTF-8 percent-encoded, a stray % as %25)', async () => {
    const made = await create({ url: 'https://bücher.example/中文/ü?q=äö&p=%zz#frag-é', key: 'normalised' });
    expect(made.status).toBe(201);
    expect(made.body.data.url).toBe(NORMALISED);
    expect((await linkRepository.findById(made.body.data.id, true))?.url).toBe(NORMALISED);
    const got = await http(t.baseUrl, 'GET', `/v1/links/${made.body.data.id}`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(got.body.data.url).toBe(NORMALISED);
  });

  it('search finds the link by its normalised URL and by its Unicode form', async () => {
    for (const search of ['bücher', 'xn--bcher-kva', '中文', '%E4%B8%AD', 'äö']) {
      const res = await http(t.baseUrl, 'GET', `/v1/links?search=${encodeURIComponent(search)}`, {
        headers: { 'api-key': t.tenantA.serverKey },
      });
      expect(res.status).toBe(200);
      expect(
        res.body.data.map((l: { key: string }) => l.key),
        search,
      ).toContain('normalised');
    }
  });

  it('the 2,048-character limit holds for the normalised URL: a CJK URL nine times longer once encoded is refused', async () => {
    const url = `https://example.com/${'中'.repeat(300)}`;
    expect(url.length).toBeLessThan(2048);
    const res = await create({ url, key: 'too-long-once-encoded' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toEqual([{ path: 'url', message: expect.stringContaining('once normalised') }]);
    // A rule's or a variant's URL is held to the same limit.
    const rule = await create({
      url: 'https://example.com/',
      key: 'too-long-rule',
      rules: [{ conditions: [{ type: 'country', value: 'DE' }], url }],
    });
    expect(rule.status).toBe(400);
    expect(rule.body.error.details[0].path).toBe('rules[0].url');
  });
});

/** A valid link as large as the schema allows, built from characters that double when escaped. */
const maximumLink = (i: number) => {
  const q = (n: number) => '"'.repeat(n);
  const url = (tag: string) =>
    `https://example.com/${tag}/${i}/${'a'.repeat(2048 - `https://example.com/${tag}/${i}/`.length)}`;
  return {
    url: url('u'),
    key: `big-${i}`,
    title: q(255),
    comments: q(1000),
    objects: { a: q(8188) },
    tracking: { utmSource: q(1000), customParams: { a: q(1000), b: q(1000), c: q(1000) } },
    desktopOverrideUrl: url('d'),
    androidOverrideUrl: url('a'),
    iosOverrideUrl: url('i'),
    expiredUrl: url('e'),
    socialPreview: { title: q(255), description: q(1000), imageAlt: q(420), image: url('img') },
    tags: Array.from({ length: 20 }, (_, n) => `tag-${n}-${'x'.repeat(40)}`),
  };
};

/** The function's result as Lambda serializes it: the body re-escaped inside the JSON. */
const lambdaResultBytes = (res: { status: number; headers: Headers; text: string }) =>
  Buffer.byteLength(
    JSON.stringify({ statusCode: res.status, headers: Object.fromEntries(res.headers), body: res.text }),
  );

describe("pages stay under Lambda's 6 MB response limit", () => {
  it('100 maximum-size links listed with limit=100: every page fits, reports hasMore, and the pages hold each link once', async () => {
    const created: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, j) => create(maximumLink(batch * 10 + j))));
      for (const m of made) {
        expect(m.status, m.text.slice(0, 300)).toBe(201);
        created.push(m.body.data.id);
      }
    }
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const res = await http(t.baseUrl, 'GET', `/v1/links?limit=100&search=big-&cursor=${encodeURIComponent(cursor)}`, {
        headers: { 'api-key': t.tenantA.serverKey },
      });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(lambdaResultBytes(res)).toBeLessThanOrEqual(6_291_556);
      pages++;
      seen.push(...res.body.data.map((l: { id: string }) => l.id));
      expect(res.body.pagination.hasMore).toBe(res.body.pagination.nextCursor !== null);
      if (res.body.pagination.hasMore) expect(res.body.data.length).toBeLessThan(100);
      cursor = res.body.pagination.nextCursor ?? '';
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen.sort()).toEqual(created.sort());
  }, 180_000);
});

describe('the local server enforces what API Gateway and Lambda enforce', () => {
  it('routes a trailing slash as HTTP APIs do (rawPath keeps it)', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/links/?limit=1', { headers: { 'api-key': t.tenantA.serverKey } });
    expect(res.status).toBe(200);
    expect(res.body.pagination.limit).toBe(1);
    const made = await create({ url: 'https://example.com/slash', key: 'slash' });
    const one = await http(t.baseUrl, 'GET', `/v1/links/${made.body.data.id}/`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(one.status).toBe(200);
    expect(one.body.data.id).toBe(made.body.data.id);
  });

  it('a request whose event passes 6 MB (body counted base64-encoded) is 413 before any handler runs', async () => {
    // 5 MB of body: under API Gateway's 10 MB, over Lambda's 6 MB once base64-encoded in the event.
    const res = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/', pad: 'x'.repeat(5 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request Entity Too Large' });
  });
});
