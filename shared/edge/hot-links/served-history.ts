import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LRUCache } from 'lru-cache';
import { batchWrite } from '@shared/db/batch-write';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { parseHotEntry, type HotEntry } from './edge-answer';
import type { HotStoreEntry } from './hot-entry';

/**
 * What the edge served, when: the hot-set writer records each entry it puts in the KeyValueStore
 * (`HOTSERVED#<host/key>`, sort key the write's time, TTL a day), and the real-time log consumer
 * finds the entry a request got (a log record carries the request, not the response's
 * `Location`): the latest write at or before the request's time.
 *
 * The write's time is taken when `UpdateKeys` is sent, and the record is written once it
 * succeeded. A KeyValueStore write reaches the edge locations within seconds, not at once: for a
 * few seconds after a change, one location may still answer with the previous entry while the
 * history names the new one. The consumer takes the latest write at or before the request (the
 * new entry as soon as it was sent): a click in those seconds may be recorded with the new
 * destination although its location still sent the old one. Either choice is wrong for some
 * clicks of those seconds; this one is never older than what the origin would have answered.
 */

/** How long a write is remembered (the table's TTL removes it): a day. */
export const HOT_SERVED_TTL_SECONDS = 24 * 3600;

/**
 * A write is readable in the history within this long of its time (the `UpdateKeys` call, then
 * the history's BatchWrite): a cached history fetched at F answers for requests before F minus
 * this; a later request reads the history again.
 */
export const HOT_SERVED_VISIBLE_WITHIN_MS = 5_000;

/** A link's histories cached per process (the consumer sees a hot link's clicks in every batch). */
const HISTORY_CACHE_MAX = 5_000;
const HISTORY_CACHE_TTL_MS = 60_000;

export interface ServedWrite {
  /** The write's time (ms). */
  at: number;
  entry: HotEntry;
  /** The destination as the click event records it (the entry's `Location` when not recorded). */
  destination: string;
}

/** Records the entries one `UpdateKeys` batch put, with the time it was sent. */
export const recordServedEntries = async (puts: readonly HotStoreEntry[], writtenAt: Date): Promise<void> => {
  if (puts.length === 0) return;
  const at = writtenAt.toISOString();
  const ttl = Math.floor(writtenAt.getTime() / 1000) + HOT_SERVED_TTL_SECONDS;
  await batchWrite(
    puts.map((put) => ({
      PutRequest: {
        Item: {
          ...keys.hotServed(put.key, at),
          type: 'HOTSERVED',
          value: put.value,
          ...(put.destination !== undefined ? { destination: put.destination } : {}),
          ttl,
        },
      },
    })),
  );
};

/**
 * A history read for a request within HOT_SERVED_VISIBLE_WITHIN_MS of it is read again, but at
 * most once a second per key (a hot link's clicks of one batch share one read): a write made in
 * that second is seen a second later at most, inside the propagation seconds described above.
 */
export const HOT_SERVED_REREAD_MS = 1_000;

const history = new LRUCache<string, { fetchedAt: number; writes: Promise<ServedWrite[]> }>({
  max: HISTORY_CACHE_MAX,
  ttl: HISTORY_CACHE_TTL_MS,
});

/** Every remembered write of one store key, oldest first. */
const readHistory = async (storeKey: string): Promise<ServedWrite[]> => {
  const writes: ServedWrite[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.hotServedOf(storeKey).pk },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const entry = typeof item.value === 'string' ? parseHotEntry(item.value) : null;
      const at = Date.parse(String(item.sk));
      if (!entry || !Number.isFinite(at)) continue;
      writes.push({ at, entry, destination: typeof item.destination === 'string' ? item.destination : entry.l });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return writes.sort((a, b) => a.at - b.at);
};

/**
 * The entry the edge had for `storeKey` at `at`: the latest recorded write at or before it, or
 * null when none is remembered (older than a day, or its record failed).
 */
export const servedEntryAt = async (storeKey: string, at: Date, now = Date.now()): Promise<ServedWrite | null> => {
  let cached = history.get(storeKey);
  const stale =
    !cached ||
    (at.getTime() > cached.fetchedAt - HOT_SERVED_VISIBLE_WITHIN_MS && now - cached.fetchedAt >= HOT_SERVED_REREAD_MS);
  if (!cached || stale) {
    const writes = readHistory(storeKey);
    cached = { fetchedAt: now, writes };
    history.set(storeKey, cached);
    writes.catch(() => history.delete(storeKey));
  }
  let found: ServedWrite | null = null;
  for (const write of await cached.writes) if (write.at <= at.getTime()) found = write;
  return found;
};

/** Forgets the cached histories (tests). */
export const clearServedHistoryCache = (): void => {
  history.clear();
};
