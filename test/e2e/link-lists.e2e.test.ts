import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { countClicks } from '@test/support/count-clicks';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
/** A tenant of its own, so the counts below are exact. */
let w: BootstrapResult;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  w = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Lists' });
});

const headers = () => ({ 'api-key': w.serverKey });
const create = async (json: Record<string, unknown>) => {
  const res = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: headers(),
    json: { domain: w.domain, url: 'https://example.com', ...json },
  });
  expect(res.status).toBe(201);
  return res.body.data;
};
const list = (query: string, path = '/v1/links') => http(t.baseUrl, 'GET', `${path}?${query}`, { headers: headers() });

/** Walks every page; `between` runs after each page (to create links while paging). */
const walk = async (query: string, between?: () => Promise<unknown>) => {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const res = await list(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((l: { id: string }) => l.id));
    expect(res.body.pagination.hasMore).toBe(res.body.pagination.nextCursor !== null);
    cursor = res.body.pagination.nextCursor;
    if (!cursor) return ids;
    await between?.();
  }
  throw new Error('too many pages');
};

describe('GET /v1/links', () => {
  let created: Array<{ id: string; key: string; tags: unknown[] }> = [];
  beforeAll(async () => {
    created = [];
    for (let i = 0; i < 12; i++) {
      created.push(
        await create({
          key: `item-${String(i).padStart(2, '0')}`,
          title: i === 3 ? 'Summer SALE' : `Item ${i}`,
          tags: i % 3 === 0 ? ['Promo'] : ['Other'],
          url: i === 5 ? 'https://shop.example.com/Needle' : 'https://example.com',
        }),
      );
    }
  });

  it('defaults to 25, created_at_desc, non-archived; walks pages exactly once in order', async () => {
    const first = await list('');
    expect(first.body.pagination).toEqual({ limit: 25, nextCursor: null, hasMore: false });
    expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(created.map((l) => l.id).reverse());
    expect(await walk('limit=5')).toEqual(created.map((l) => l.id).reverse());
    expect(await walk('limit=5&sort=created_at_asc')).toEqual(created.map((l) => l.id));
  });

  it('returns every record once while links are created between page fetches', async () => {
    const before = (await walk('limit=100')).slice();
    let n = 0;
    const desc = await walk('limit=4', () => create({ title: `during-${n++}` }));
    expect(desc).toEqual(before);
    const asc = await walk('limit=4&sort=created_at_asc', () => create({ title: `during-${n++}` }));
    expect(new Set(asc).size).toBe(asc.length);
    expect(asc.slice(0, before.length)).toEqual(before.slice().reverse());
    expect(asc.length).toBeGreaterThan(before.length);
  });

  it('caps limit at 100 and refuses limit below 1 or not an integer', async () => {
    expect((await list('limit=500')).body.pagination.limit).toBe(100);
    for (const bad of ['0', '-1', '2.5', 'abc', '']) {
      const res = await list(`limit=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe('limit');
    }
  });

  it('refuses a tampered cursor or one used with other filters (400 invalid_cursor)', async () => {
    const page = await list('limit=2');
    const cursor = page.body.pagination.nextCursor as string;
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    for (const q of [
      `cursor=${tampered}`,
      `cursor=${cursor}&sort=created_at_asc`,
      `cursor=${cursor}&search=x`,
      'cursor=garbage',
    ]) {
      const res = await list(`limit=2&${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    // another workspace cannot use it either
    const other = await http(t.baseUrl, 'GET', `/v1/links?cursor=${cursor}`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(other.body.error.code).toBe('invalid_cursor');
  });

  it('search matches title, url, short link, key, domain and tag names, ignoring case', async () => {
    const keysOf = async (q: string) =>
      (await walk(`limit=2&search=${encodeURIComponent(q)}`)).map((id) => created.find((c) => c.id === id)?.key);
    expect(await keysOf('summer sale')).toEqual(['item-03']);
    expect(await keysOf('NEEDLE')).toEqual(['item-05']);
    expect(await keysOf('ITEM-1')).toEqual(['item-11', 'item-10']);
    expect((await keysOf('promo')).sort()).toEqual(['item-00', 'item-03', 'item-06', 'item-09']);
    expect((await walk(`limit=100&search=${w.domain.toUpperCase()}`)).length).toBeGreaterThanOrEqual(12);
    expect(await keysOf('no-such-thing')).toEqual([]);
  });

  it('filters by tag (exact, case-insensitive) and domain; both together', async () => {
    const promo = await walk('limit=2&tag=PROMO');
    expect(promo).toEqual([created[9]!.id, created[6]!.id, created[3]!.id, created[0]!.id]);
    expect(await walk('limit=2&tag=Prom')).toEqual([]);
    expect((await walk(`limit=100&domain=${w.domain}`)).length).toBeGreaterThanOrEqual(12);
    expect(await walk(`limit=3&domain=${w.domain}&tag=promo`)).toEqual(promo);
    expect(await walk('limit=3&domain=nope.example.com')).toEqual([]);
    expect((await list('domain=not_a_host')).status).toBe(400);
  });

  it('sorts by updated time and by clicks', async () => {
    await http(t.baseUrl, 'PATCH', `/v1/links/${created[2]!.id}`, { headers: headers(), json: { title: 'touched' } });
    expect((await list('sort=updated_at_desc&limit=1')).body.data[0].id).toBe(created[2]!.id);
    const updatedAsc = await walk('sort=updated_at_asc&limit=3');
    expect(updatedAsc[updatedAsc.length - 1]).toBe(created[2]!.id);
    expect(new Set(updatedAsc).size).toBe(updatedAsc.length);

    await countClicks(created[7]!.id, { humans: 3 });
    await countClicks(created[1]!.id, { humans: 1 });
    const byClicks = await walk('sort=clicks_desc&limit=1&tag=other');
    expect(byClicks.slice(0, 2)).toEqual([created[7]!.id, created[1]!.id]);
    const other = await walk('limit=100&tag=other');
    expect(byClicks.slice().sort()).toEqual(other.slice().sort());
    const asc = await walk('sort=clicks_asc&limit=2&tag=other');
    expect(asc.slice(-2)).toEqual([created[1]!.id, created[7]!.id]);
    expect((await list('sort=popular')).status).toBe(400);
  });

  it('lists archived links only with archived=true, and refuses other archived values', async () => {
    const a = await create({ title: 'to-archive' });
    await http(t.baseUrl, 'DELETE', `/v1/links/${a.id}`, { headers: headers() });
    expect(await walk('limit=100&archived=true')).toEqual([a.id]);
    expect(await walk('limit=100&archived=false')).not.toContain(a.id);
    expect(await walk('limit=100&archived=true&search=to-archive')).toEqual([a.id]);
    for (const bad of ['yes', '1', 'TRUE']) expect((await list(`archived=${bad}`)).status).toBe(400);
    await http(t.baseUrl, 'PATCH', `/v1/links/${a.id}`, { headers: headers(), json: { archived: false } });
    expect(await walk('limit=100&archived=true')).toEqual([]);
  });
});
