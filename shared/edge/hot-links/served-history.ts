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
 * The write's time is taken, and the record written, before `UpdateKeys` is sent (a failed batch
 * removes its records again), so a write's record exists before any edge location can serve the
 * entry: a history read at F holds every write an edge could have served by F. A KeyValueStore
 * write then reaches the edge locations within seconds, not at once: for those seconds one
 * location may still answer with the previous entry while the history names the new one. The
 * consumer takes the latest write at or before the request (the new entry from the moment its
 * write was sent): a click in those seconds may be recorded with the new destination although its
 * location still sent the old one. Either choice is wrong for some clicks of those seconds; this
 * one is never older than what the origin would have answered.
 */

/** How long a write is remembered (the table's TTL removes it): a day. */
export const HOT_SERVED_TTL_SECONDS = 24 * 3600;

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

/** Records the entries one `UpdateKeys` batch puts, with the time it is sent. */
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
  // A read started at F holds every write an edge could serve by F: later requests read again
  // (one read per hot link per batch, as a batch's records are older than the batch).
  if (!cached || at.getTime() > cached.fetchedAt) {
    const writes = readHistory(storeKey);
    cached = { fetchedAt: now, writes };
    history.set(storeKey, cached);
    writes.catch(() => history.delete(storeKey));
  }
  let found: ServedWrite | null = null;
  for (const write of await cached.writes) if (write.at <= at.getTime()) found = write;
  return found;
};

/** Removes the records of a batch the store refused (its entries were never served). */
export const forgetServedEntries = async (puts: readonly HotStoreEntry[], writtenAt: Date): Promise<void> => {
  if (puts.length === 0) return;
  const at = writtenAt.toISOString();
  await batchWrite(puts.map((put) => ({ DeleteRequest: { Key: keys.hotServed(put.key, at) } })));
};

/** Forgets the cached histories (tests). */
export const clearServedHistoryCache = (): void => {
  history.clear();
};
