import { describe, expect, it } from 'vitest';
import { createRedirectCache, REDIRECT_CACHE_TTL_MS, REDIRECT_HOT_LOOKUPS } from '@shared/edge/redirect-cache';

/** A cache on a hand-moved clock, and a store whose reads it counts. */
const setup = (options: Parameters<typeof createRedirectCache>[0] = {}) => {
  let t = 1_000_000;
  const cache = createRedirectCache<{ url: string }>({ now: () => t, ...options });
  const store = new Map<string, { url: string }>();
  let reads = 0;
  const lookup = (hostname: string, key: string) =>
    cache.lookup(hostname, key, () => {
      reads += 1;
      return Promise.resolve(store.get(`${hostname.toLowerCase()}/${key}`));
    });
  return {
    cache,
    store,
    lookup,
    reads: () => reads,
    advance: (ms: number) => (t += ms),
  };
};

describe('redirect cache (hot links only, bounded staleness)', () => {
  it('an ordinary link is read on every lookup and sees a change at once', async () => {
    const s = setup();
    s.store.set('a.test/k', { url: 'https://one.example' });
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS - 1; i++)
      expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://one.example' });
    s.store.set('a.test/k', { url: 'https://two.example' });
    s.advance(999);
    // Lookups in a new second start counting again: still not hot.
    s.advance(1);
    expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://two.example' });
    expect(s.reads()).toBe(REDIRECT_HOT_LOOKUPS);
    expect(s.cache.size).toBe(0);
  });

  it('a hot link is read once per staleness bound; a change reaches it when the bound has passed', async () => {
    const s = setup();
    s.store.set('a.test/k', { url: 'https://one.example' });
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS; i++) await s.lookup('a.test', 'k');
    expect(s.reads()).toBe(REDIRECT_HOT_LOOKUPS); // the 5th lookup read and cached
    s.store.set('a.test/k', { url: 'https://two.example' }); // a PATCH
    for (let i = 0; i < 100; i++) expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://one.example' });
    s.advance(REDIRECT_CACHE_TTL_MS - 1);
    expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://one.example' });
    expect(s.reads()).toBe(REDIRECT_HOT_LOOKUPS);
    s.advance(1);
    expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://two.example' });
    expect(s.reads()).toBe(REDIRECT_HOT_LOOKUPS + 1);
  });

  it('a link that cooled down is read fresh again once its entry expired', async () => {
    const s = setup();
    s.store.set('a.test/k', { url: 'https://one.example' });
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS; i++) await s.lookup('a.test', 'k');
    s.advance(REDIRECT_CACHE_TTL_MS);
    s.store.set('a.test/k', { url: 'https://two.example' });
    expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://two.example' });
    s.store.set('a.test/k', { url: 'https://three.example' });
    expect(await s.lookup('a.test', 'k')).toEqual({ url: 'https://three.example' });
    expect(s.cache.size).toBe(0);
  });

  it('a missing key is cached the same way (an archive or delete, a create, within the bound)', async () => {
    const s = setup();
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS; i++) expect(await s.lookup('a.test', 'gone')).toBeUndefined();
    s.store.set('a.test/gone', { url: 'https://new.example' });
    expect(await s.lookup('a.test', 'gone')).toBeUndefined();
    expect(s.reads()).toBe(REDIRECT_HOT_LOOKUPS);
    s.advance(REDIRECT_CACHE_TTL_MS);
    expect(await s.lookup('a.test', 'gone')).toEqual({ url: 'https://new.example' });
  });

  it('entries are per host and key: hostnames compare case-insensitively, keys case-sensitively', async () => {
    const s = setup();
    s.store.set('a.test/k', { url: 'https://a.example' });
    s.store.set('b.test/k', { url: 'https://b.example' });
    s.store.set('a.test/K', { url: 'https://upper.example' });
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS; i++) await s.lookup(i % 2 ? 'A.TEST' : 'a.test', 'k');
    expect(await s.lookup('b.test', 'k')).toEqual({ url: 'https://b.example' });
    expect(await s.lookup('a.test', 'K')).toEqual({ url: 'https://upper.example' });
    expect(await s.lookup('A.test', 'k')).toEqual({ url: 'https://a.example' });
  });

  it('a failed read is never cached', async () => {
    let t = 0;
    const cache = createRedirectCache<{ url: string }>({ now: () => t });
    let fail = false;
    let reads = 0;
    const load = () => {
      reads += 1;
      return fail ? Promise.reject(new Error('throttled')) : Promise.resolve({ url: 'https://ok.example' });
    };
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS - 1; i++) await cache.lookup('a.test', 'k', load);
    fail = true;
    await expect(cache.lookup('a.test', 'k', load)).rejects.toThrow('throttled');
    fail = false;
    expect(await cache.lookup('a.test', 'k', load)).toEqual({ url: 'https://ok.example' });
    expect(reads).toBe(REDIRECT_HOT_LOOKUPS + 1);
    t += 1;
    await cache.lookup('a.test', 'k', load);
    expect(reads).toBe(REDIRECT_HOT_LOOKUPS + 1);
  });

  it('memory is bounded: the least recently used entry goes first', async () => {
    const s = setup({ max: 2 });
    for (const key of ['a', 'b', 'c']) {
      s.store.set(`h.test/${key}`, { url: `https://${key}.example` });
      for (let i = 0; i < REDIRECT_HOT_LOOKUPS; i++) await s.lookup('h.test', key);
    }
    expect(s.cache.size).toBe(2);
    const before = s.reads();
    await s.lookup('h.test', 'c');
    await s.lookup('h.test', 'b');
    expect(s.reads()).toBe(before);
  });

  it('lookups of a hot key while its read is in flight share that read; a failed shared read lets each read for itself', async () => {
    let t = 0;
    const cache = createRedirectCache<{ url: string }>({ now: () => t });
    let reads = 0;
    let release!: (v: { url: string }) => void;
    let fail!: (e: Error) => void;
    const slow = () => {
      reads += 1;
      return new Promise<{ url: string }>((resolve, reject) => {
        release = resolve;
        fail = reject;
      });
    };
    const fast = () => {
      reads += 1;
      return Promise.resolve({ url: 'https://own.example' });
    };
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS - 1; i++) await cache.lookup('a.test', 'k', fast);
    const first = cache.lookup('a.test', 'k', slow);
    const second = cache.lookup('a.test', 'k', fast);
    release({ url: 'https://shared.example' });
    expect(await Promise.all([first, second])).toEqual([
      { url: 'https://shared.example' },
      { url: 'https://shared.example' },
    ]);
    expect(reads).toBe(REDIRECT_HOT_LOOKUPS);

    t += REDIRECT_CACHE_TTL_MS; // expired: the next read is shared again
    for (let i = 0; i < REDIRECT_HOT_LOOKUPS - 1; i++) await cache.lookup('b.test', 'k', fast);
    const failing = cache.lookup('b.test', 'k', slow);
    const waiting = cache.lookup('b.test', 'k', fast);
    fail(new Error('throttled'));
    await expect(failing).rejects.toThrow('throttled');
    expect(await waiting).toEqual({ url: 'https://own.example' });
  });
});
