import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { parseHotEntry } from './edge-answer';
import type { HotSetChanges, HotSetLimits, PlannedEntry } from './hot-set';
import { DEFAULT_HOT_SET_LIMITS } from './hot-set';
import type { HotSetWriter, HotSetWriteResult } from './kvs-writer';
import { planLinks, retryOnStaleStore } from './refresh-hot-set';

/** What a stream record says about a link item: that item, before and after (NEW_AND_OLD_IMAGES). */
type Image = Record<string, unknown>;

const imageOf = (image: unknown): Image | undefined =>
  image ? unmarshall(image as Record<string, SdkAttributeValue>) : undefined;

/**
 * The attributes a change of which may change the link's entry: every change a caller makes moves
 * `updatedAt` (the link's version, carried in the entry); archiving, the key and the domain are
 * compared too. The counter consumer's updates (clicks, `lh#` counters, checkpoints) move none of
 * them, so they cost no read of the store.
 */
const VERSIONED = ['updatedAt', 'archived', 'key', 'domain', 'domainId', 'expiresAt'] as const;

/**
 * The links a batch of the table's stream may have changed at the edge: a LINK item removed, or
 * modified in one of the attributes its entry depends on. Other items, inserts (a new link is not
 * in the store) and counter-only updates give nothing. Each link once, in the batch's order.
 */
export const changedLinkIds = (records: readonly DynamoDBRecord[]): string[] => {
  const ids = new Set<string>();
  for (const record of records) {
    const before = imageOf(record.dynamodb?.OldImage);
    const after = imageOf(record.dynamodb?.NewImage);
    const pk = record.dynamodb?.Keys?.pk?.S ?? (after ?? before)?.pk;
    const sk = record.dynamodb?.Keys?.sk?.S ?? (after ?? before)?.sk;
    if (sk !== 'LINK' || typeof pk !== 'string' || !pk.startsWith('LINK#')) continue;
    const linkId = pk.slice('LINK#'.length);
    if (record.eventName === 'REMOVE') ids.add(linkId);
    else if (record.eventName === 'MODIFY') {
      // Without both images the change cannot be judged: re-plan the link (a read of the store).
      if (!before || !after || VERSIONED.some((name) => !sameValue(before[name], after[name]))) ids.add(linkId);
    }
  }
  return [...ids];
};

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The store keys to re-plan: the entries (key -> link id) in the store of the changed links. */
export interface HotLinkInvalidation {
  /** The changed links that have an entry in the store now. */
  linkIds: string[];
  /** Their entries' keys (a link's key or domain may have changed: its old key is among them). */
  keys: string[];
}

/**
 * Of the changed links, those with an entry in the store (`current`, key -> value; each entry
 * names its link). Only those matter: a link not in the store is added, if hot, by the refresh.
 */
export const hotLinkInvalidation = (
  changed: readonly string[],
  current: ReadonlyMap<string, string>,
): HotLinkInvalidation => {
  const wanted = new Set(changed);
  const linkIds = new Set<string>();
  const keys: string[] = [];
  for (const [key, value] of current) {
    const id = parseHotEntry(value)?.i;
    if (id === undefined || !wanted.has(id)) continue;
    linkIds.add(id);
    keys.push(key);
  }
  return { linkIds: [...linkIds], keys: keys.sort() };
};

/**
 * The store's changes for re-planned links: their planned entries written where they differ, and
 * their keys in the store that the plan no longer has (archived, expired, not eligible, cold, or
 * moved to another key) deleted. Entries of other links are not touched.
 */
export const replanChanges = (
  current: ReadonlyMap<string, string>,
  invalidation: HotLinkInvalidation,
  plan: ReadonlyMap<string, PlannedEntry>,
): HotSetChanges => {
  const replanned = new Set(invalidation.linkIds);
  const entries = [...plan.values()].filter((entry) => replanned.has(entry.linkId));
  const planned = new Set(entries.map((entry) => entry.key));
  return {
    puts: entries.filter((entry) => current.get(entry.key) !== entry.value).map(({ key, value }) => ({ key, value })),
    deletes: invalidation.keys.filter((key) => !planned.has(key)),
  };
};

export interface HotLinkInvalidationResult extends HotSetWriteResult {
  /** Links the batch changed (counter updates excluded). */
  changed: number;
  /** Of those, links that had an entry in the store. */
  replanned: number;
}

const NOTHING: HotSetWriteResult = {
  puts: 0,
  deletes: 0,
  batches: 0,
  itemCount: undefined,
  totalSizeInBytes: undefined,
};

/**
 * One batch of the table's stream applied to the edge's hot set, deployed (the hot-set writer's
 * stream event) and local (the local table stream) alike: the links the batch changed that have
 * an entry in the store are read again and planned as the refresh plans them; their entries are
 * replaced or deleted through the one serialized writer, from the store's current ETag (a stale
 * one is retried once). A batch of counter updates only reads nothing.
 */
export const invalidateHotLinks = async (
  writer: HotSetWriter,
  records: readonly DynamoDBRecord[],
  now = new Date(),
  limits: HotSetLimits = DEFAULT_HOT_SET_LIMITS,
): Promise<HotLinkInvalidationResult> => {
  const changed = changedLinkIds(records);
  if (changed.length === 0) return { ...NOTHING, changed: 0, replanned: 0 };
  return retryOnStaleStore(async () => {
    const current = await writer.read();
    const invalidation = hotLinkInvalidation(changed, current);
    if (invalidation.linkIds.length === 0) return { ...NOTHING, changed: changed.length, replanned: 0 };
    const plan = await planLinks(invalidation.linkIds, now, limits);
    const written = await writer.apply(replanChanges(current, invalidation, plan));
    return { ...written, changed: changed.length, replanned: invalidation.linkIds.length };
  });
};
