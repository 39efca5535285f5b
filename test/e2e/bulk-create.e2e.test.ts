import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const server = (key = t.tenantA.serverKey) => ({ 'api-key': key });
const bulk = (links: unknown, headers: Record<string, string> = {}, key = t.tenantA.serverKey) =>
  http(t.baseUrl, 'POST', '/v1/links/bulk', {
    headers: { ...server(key), ...headers },
    json: links === undefined ? {} : { links },
  });
const get = (id: string) => http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: server() });

describe('POST /v1/links/bulk', () => {
  it('creates each item independently and answers one result per item, in order', async () => {
    const d = t.tenantA.domain;
    const existing = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://example.com/old', domain: d, key: 'bulk-taken' },
    });
    expect(existing.status).toBe(201);
    const res = await bulk([
      {
        url: 'https://example.com/1',
        domain: d,
        key: 'bulk-one',
        tags: ['Bulk', 'bulk', 'Other'],
        geo: { de: 'https://example.de/1' },
      },
      { url: 'javascript:alert(1)', domain: d },
      { url: 'https://example.com/3', domain: d, key: 'bulk-taken' },
      { url: 'https://example.com/4', domain: d, key: 'bulk-one' },
      { url: 'https://example.com/5', domain: 'not-ours.example.com' },
      { url: 'https://example.com/6', domain: d, password: 'secret', title: 'Six' },
      'not an object',
      { url: 'https://example.com/8', domain: t.tenantB.domain },
    ]);
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data).toHaveLength(8);
    expect(data.map((r: { success: boolean; error?: { code: string } }) => (r.success ? 'ok' : r.error!.code))).toEqual(
      [
        'ok',
        'invalid_request',
        'slug_taken',
        'slug_taken',
        'invalid_request',
        'ok',
        'invalid_request',
        'invalid_request',
      ],
    );
    expect(data[0].data).toEqual({
      id: expect.stringMatching(/^lnk_/),
      domain: d,
      key: 'bulk-one',
      shortLink: localShortLink(t.edgeUrl, d, 'bulk-one'),
      url: 'https://example.com/1',
      createdAt: expect.any(String),
    });
    expect(data[1].error.details[0].path).toBe('url');
    expect(data[4].error.details[0].path).toBe('domain');
    expect(data[5].data.key).toMatch(/^[A-Za-z0-9]{7}$/);

    const one = (await get(data[0].data.id)).body.data;
    expect(one).toMatchObject({
      key: 'bulk-one',
      url: 'https://example.com/1',
      geo: { DE: 'https://example.de/1' },
      passwordProtected: false,
    });
    expect(one.tags.map((tag: { name: string }) => tag.name)).toEqual(['Bulk', 'Other']);
    expect((await get(data[5].data.id)).body.data).toMatchObject({ title: 'Six', passwordProtected: true });
    // The failed items created nothing; the taken slug still belongs to the old link.
    const taken = await http(t.baseUrl, 'GET', '/v1/links?search=bulk-taken', { headers: server() });
    expect(taken.body.data.map((l: { id: string }) => l.id)).toEqual([existing.body.data.id]);
    const urls = (await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: server() })).body.data.map(
      (l: { url: string }) => l.url,
    );
    for (const u of [
      'https://example.com/3',
      'https://example.com/4',
      'https://example.com/5',
      'https://example.com/8',
    ])
      expect(urls).not.toContain(u);
  });

  it('refuses a body that is not {links: [1..100 items]} with 400 and creates nothing', async () => {
    const item = { url: 'https://example.com/never', domain: t.tenantA.domain };
    for (const links of [undefined, [], 'x', { a: 1 }, Array.from({ length: 101 }, () => item)]) {
      const res = await bulk(links);
      expect(res.status, JSON.stringify({ links }).slice(0, 50)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const raw = await http(t.baseUrl, 'POST', '/v1/links/bulk', { headers: server(), json: [item] });
    expect(raw.status).toBe(400);
    const urls = (await http(t.baseUrl, 'GET', '/v1/links?search=never', { headers: server() })).body.data;
    expect(urls).toEqual([]);
  });

  it('is idempotent over the whole request: a replay answers the same results and creates nothing new', async () => {
    const links = Array.from({ length: 20 }, (_, i) => ({
      url: `https://example.com/idem/${i}`,
      domain: t.tenantA.domain,
      ...(i % 2 ? { key: `idem-${i}` } : {}),
    }));
    const first = await bulk(links, { 'idempotency-key': 'bulk-idem-1' });
    expect(first.status).toBe(200);
    expect(first.body.data.every((r: { success: boolean }) => r.success)).toBe(true);
    const replay = await bulk(links, { 'idempotency-key': 'bulk-idem-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    const listed = await http(t.baseUrl, 'GET', '/v1/links?search=idem&limit=100', { headers: server() });
    expect(listed.body.data).toHaveLength(20);
    const other = await bulk(links.slice(1), { 'idempotency-key': 'bulk-idem-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('stores and replays 100 results of maximum-size links (URLs of 2,048 characters once normalised)', async () => {
    // CJK URLs as long as the limit allows once percent-encoded (9 characters a CJK character):
    // 2,048-character URLs, ~240 KB of results.
    const links = Array.from({ length: 100 }, (_, i) => {
      const prefix = `https://example.com/${i}/`;
      return {
        url: prefix + '漢'.repeat(Math.floor((2048 - prefix.length) / 9)),
        domain: t.tenantA.domain,
        key: `max-${i}-${'k'.repeat(90)}`,
      };
    });
    const first = await bulk(links, { 'idempotency-key': 'bulk-max' });
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    expect(first.body.data.filter((r: { success: boolean }) => r.success)).toHaveLength(100);
    expect(
      first.body.data.every(
        (r: { data: { url: string } }) => r.data.url.length > 2048 - 9 && r.data.url.length <= 2048,
      ),
    ).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(first.body.data))).toBeGreaterThan(200 * 1024);
    const replay = await bulk(links, { 'idempotency-key': 'bulk-max' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
  });

  it('two concurrent bulks asking for the same slug: exactly one gets it, every other item is created', async () => {
    const batch = (tag: string) =>
      Array.from({ length: 30 }, (_, i) => ({
        url: `https://example.com/race/${tag}/${i}`,
        domain: t.tenantA.domain,
        ...(i === 15 ? { key: 'race-key' } : {}),
      }));
    const [a, b] = await Promise.all([bulk(batch('a')), bulk(batch('b'))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const raceResults = [a.body.data[15], b.body.data[15]];
    expect(raceResults.filter((r: { success: boolean }) => r.success)).toHaveLength(1);
    expect(raceResults.find((r: { success: boolean }) => !r.success).error.code).toBe('slug_taken');
    for (const res of [a, b])
      expect(res.body.data.filter((r: { success: boolean }, i: number) => i !== 15 && !r.success)).toEqual([]);
  });

  it('answers another workspace nothing of this one', async () => {
    const res = await bulk([{ url: 'https://example.com/b', domain: t.tenantA.domain }], {}, t.tenantB.serverKey);
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ success: false, error: { code: 'invalid_request' } });
  });
});
