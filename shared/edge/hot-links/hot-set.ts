import { clickHourOf, liveHumans } from '@shared/clicks/link-counters';
import type { LinkRecord } from '@shared/links/link-record';
import { toRedirectRecord } from '@shared/links/redirect-record';
import { KVS_STORE_MAX_BYTES } from './edge-answer';
import { hotStoreEntryOf, type HotStoreEntry } from './hot-entry';

/** The hot set's share of the store: a margin under the 5 MB quota. */
export const HOT_SET_MAX_BYTES = 4 * 1024 * 1024;
/** At most this many links in the hot set. */
export const HOT_SET_MAX_ENTRIES = 2000;
/** A link needs at least this many human clicks over the last hour to be hot. */
export const HOT_MIN_RECENT_CLICKS = 100;

const HOUR_MS = 3_600_000;

const countOf = (item: Record<string, unknown>, attribute: string): number => {
  const value = item[attribute];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
};

/**
 * A link's human clicks over the last 60 minutes, from its live hourly counters (`lh#<hour>` on
 * the link item, link-counters.ts): the current hour's count plus the previous hour's, weighted
 * by the part of that hour still inside the window (the counters are kept per hour, the finest
 * recent count the table holds).
 */
export const recentHumanClicks = (item: Record<string, unknown>, now: Date): number => {
  const current = countOf(item, liveHumans(clickHourOf(now.toISOString())));
  const previous = countOf(item, liveHumans(clickHourOf(new Date(now.getTime() - HOUR_MS).toISOString())));
  const intoHour = (now.getTime() % HOUR_MS) / HOUR_MS;
  return current + previous * (1 - intoHour);
};

/** A store entry with the link it answers and how hot it is. */
export interface PlannedEntry extends HotStoreEntry {
  linkId: string;
  recentClicks: number;
}

export interface HotSetLimits {
  maxBytes: number;
  maxEntries: number;
  minRecentClicks: number;
}

export const DEFAULT_HOT_SET_LIMITS: HotSetLimits = {
  maxBytes: HOT_SET_MAX_BYTES,
  maxEntries: HOT_SET_MAX_ENTRIES,
  minRecentClicks: HOT_MIN_RECENT_CLICKS,
};

const entryBytes = (entry: HotStoreEntry): number => Buffer.byteLength(entry.key) + Buffer.byteLength(entry.value);

/**
 * The hot set: of the candidate link items, those with the most human clicks over the last
 * minutes (at least `minRecentClicks`) whose entry the edge may answer (`hotStoreEntryOf`:
 * eligible, not expired, within the KeyValueStore's limits), hottest first, until the count or
 * byte budget is spent (the budget stays under the store's 5 MB quota).
 */
export const planHotSet = (
  items: readonly LinkRecord[],
  now: Date,
  limits: HotSetLimits = DEFAULT_HOT_SET_LIMITS,
): Map<string, PlannedEntry> => {
  if (limits.maxBytes > KVS_STORE_MAX_BYTES) throw new Error('hot set budget over the KeyValueStore quota');
  const ranked = items
    .map((link) => ({ link, recentClicks: recentHumanClicks(link as unknown as Record<string, unknown>, now) }))
    .filter((c) => c.recentClicks >= limits.minRecentClicks)
    .sort((a, b) => b.recentClicks - a.recentClicks || a.link.id.localeCompare(b.link.id));
  const planned = new Map<string, PlannedEntry>();
  let used = 0;
  for (const { link, recentClicks } of ranked) {
    if (planned.size >= limits.maxEntries) break;
    const entry = hotStoreEntryOf(link.domain, link.key, toRedirectRecord(link), link.updatedAt, now);
    if (!entry || planned.has(entry.key)) continue;
    const size = entryBytes(entry);
    if (used + size > limits.maxBytes) continue;
    used += size;
    planned.set(entry.key, { ...entry, linkId: link.id, recentClicks });
  }
  return planned;
};

/** What moves the store from `current` (key -> value) to `desired`: keys to put and keys to delete. */
export interface HotSetChanges {
  puts: HotStoreEntry[];
  deletes: string[];
}

export const diffHotSet = (
  current: ReadonlyMap<string, string>,
  desired: ReadonlyMap<string, HotStoreEntry>,
): HotSetChanges => ({
  puts: [...desired.values()]
    .filter((entry) => current.get(entry.key) !== entry.value)
    .map(({ key, value }) => ({ key, value })),
  deletes: [...current.keys()].filter((key) => !desired.has(key)),
});
