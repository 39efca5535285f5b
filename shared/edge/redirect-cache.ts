import { LRUCache } from 'lru-cache';

/**
 * A per-instance cache of redirect records for hot links only, so a viral link costs next to no
 * DynamoDB reads while every other link is read fresh on each click.
 *
 * - **Hot**: a (host, key) is cached only once this instance has looked it up
 *   `REDIRECT_HOT_LOOKUPS` (5) times within one second. One Lambda instance answers one request
 *   at a time (tens of milliseconds each), so 5 lookups of one key in a second means the link
 *   is busy; an ordinary link (a few clicks a minute) never gets there and keeps the read-fresh
 *   behaviour. Below the threshold an instance reads a key at most 4 times a second, so even
 *   1,000 instances stay under DynamoDB's 3,000 read units per key (eventually consistent reads:
 *   half a unit each, 1,000 x 4 x 0.5 = 2,000).
 * - **Staleness bound**: a cached record (or a cached "no such key") is used for at most
 *   `REDIRECT_CACHE_TTL_MS` (2 s) after it was read; after that the next lookup reads again,
 *   and caches again if the key is still hot. A PATCH, archive or delete therefore reaches every
 *   click within 2 s plus the eventually consistent read's lag (normally well under a second):
 *   within 3 s. A hot link costs each instance one read per 2 s instead of one per click.
 * - **Bounded**: at most `REDIRECT_CACHE_MAX` (1,000) records (LRU, lru-cache; a record is about 1-2 KB),
 *   and as many hotness counters.
 * - **Never shared wrongly**: entries are per (lower-cased hostname, case-sensitive key), the
 *   same identity as the slug item `SLUG#<domain>#<key>`; a failed read (timeout, throttle) is
 *   never cached.
 * - **One read at a time per hot key**: lookups of a hot key that arrive while its read is in
 *   flight wait for that read instead of sending their own (the local server, and anything that
 *   serves several requests in one process); if it fails, each reads for itself.
 */
export const REDIRECT_HOT_LOOKUPS = 5;
export const REDIRECT_HOT_WINDOW_MS = 1_000;
export const REDIRECT_CACHE_TTL_MS = 2_000;
export const REDIRECT_CACHE_MAX = 1_000;

export interface RedirectCacheOptions {
  hotLookups: number;
  hotWindowMs: number;
  ttlMs: number;
  max: number;
  /** Milliseconds (tests inject a clock). */
  now: () => number;
}

export const createRedirectCache = <T>(options: Partial<RedirectCacheOptions> = {}) => {
  const { hotLookups, hotWindowMs, ttlMs, max, now } = {
    hotLookups: REDIRECT_HOT_LOOKUPS,
    hotWindowMs: REDIRECT_HOT_WINDOW_MS,
    ttlMs: REDIRECT_CACHE_TTL_MS,
    max: REDIRECT_CACHE_MAX,
    now: () => Date.now(),
    ...options,
  };
  // Both bounded by lru-cache (the least recently used entry goes first); freshness is checked
  // here against `readAt`, on the injected clock, so the bound counts from the read's start.
  /** Lookups of a key in its current window. */
  const lookups = new LRUCache<string, { windowStart: number; count: number }>({ max });
  /** `value: null`: the key was looked up and is not there. */
  const records = new LRUCache<string, { value: T | null; readAt: number }>({ max });
  /** Reads of hot keys in flight. */
  const inFlight = new Map<string, Promise<T | undefined>>();

  /** Counts this lookup; true when the key is hot in this instance. */
  const isHot = (id: string, t: number) => {
    let entry = lookups.get(id);
    if (!entry || t - entry.windowStart >= hotWindowMs) {
      entry = { windowStart: t, count: 0 };
      lookups.set(id, entry);
    }
    entry.count += 1;
    return entry.count >= hotLookups;
  };

  return {
    /** The record of (hostname, key): from the cache while the key is hot and the entry fresh, else from `load`. */
    async lookup(hostname: string, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
      const id = `${hostname.toLowerCase()}\n${key}`;
      const t = now();
      const hot = isHot(id, t);
      const cached = records.get(id);
      if (cached && t - cached.readAt < ttlMs) return cached.value ?? undefined;
      if (cached) records.delete(id);
      if (!hot) return load();
      const pending = inFlight.get(id);
      if (pending) return pending.catch(() => load());
      const read = load();
      inFlight.set(id, read);
      try {
        const value = await read;
        records.set(id, { value: value ?? null, readAt: t });
        return value;
      } finally {
        inFlight.delete(id);
      }
    },
    clear() {
      lookups.clear();
      records.clear();
    },
    /** How many records are cached (for tests). */
    get size() {
      return records.size;
    },
  };
};
