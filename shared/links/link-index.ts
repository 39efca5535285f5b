import { keys } from '@shared/db/keys';
import type { IndexName } from '@shared/db/table-definition';
import type { LinkRecord, LinkType } from './link-record';

/**
 * How link lists are indexed (docs/links-api.md, "What is indexed").
 *
 * A list partition is `${workspaceId}#${linkType}#${archived 0|1}`, optionally narrowed by one
 * filter: `#DOMAIN#${domain}` or `#TAG#${lower-cased tag name}` (tag names are unique per
 * workspace ignoring case). In every partition:
 *   gsi1 sorts by `${createdAt}#${id}`  (sort created_at_*)
 *   gsi2 sorts by `${updatedAt}#${id}`  (sort updated_at_*)
 * The link item itself carries the unfiltered partition. Each link also has list-entry items in
 * its own item collection (pk LINK#id, sk ENTRY#DOMAIN and ENTRY#TAG#<tagId>) carrying the
 * domain and tag partitions. All of them are rewritten in the same transaction as the link, so
 * an index never disagrees with the link for longer than the GSI's replication lag (and lists
 * re-check every item they read, so a lagging index never shows a wrong record).
 *
 * Indexes are KEYS_ONLY: a list Queries ids, then BatchGets the page's link items.
 *
 * Clicks order (sort clicks_*): gsi3 over the link items, partition as above (unfiltered), sort
 * key `${clicks bucket}#${createdAt}#${id}`. Buckets are exact below 16 clicks and then eight per
 * doubling (each ~9% wide), so a click writes the index only when it crosses into the next
 * bucket: 16 times for the first 16 clicks, then about 8 times per doubling (a link clicked a
 * million times has written it about 70 times). A clicks list walks buckets in order: rows of
 * an exact bucket are already in final order (clicks equal, then creation), a coarse bucket is
 * read whole and sorted by the exact counter. See docs/links-api.md.
 */
export type LinkListFilter = { kind: 'all' } | { kind: 'domain'; domain: string } | { kind: 'tag'; tagName: string };

export const linkListPartition = (
  workspaceId: string,
  linkType: LinkType,
  archived: boolean,
  filter: LinkListFilter,
): string => {
  const base = `${workspaceId}#${linkType}#${archived ? 1 : 0}`;
  if (filter.kind === 'domain') return `${base}#DOMAIN#${filter.domain.toLowerCase()}`;
  if (filter.kind === 'tag') return `${base}#TAG#${filter.tagName.toLowerCase()}`;
  return base;
};

export type LinkTimeSort = 'created' | 'updated';

export const linkSortIndex: Record<LinkTimeSort, IndexName> = { created: 'gsi1', updated: 'gsi2' };

export const linkSortKey = (link: Pick<LinkRecord, 'id' | 'createdAt' | 'updatedAt'>, sort: LinkTimeSort): string =>
  `${sort === 'created' ? link.createdAt : link.updatedAt}#${link.id}`;

/** The index of the clicks order (the link items only). */
export const CLICKS_INDEX: IndexName = 'gsi3';
/** Below this, one bucket per click count. */
const EXACT_BUCKETS = 16;
const BUCKETS_PER_DOUBLING = 8;

/** The bucket of a click count: exact below 16, then eight per doubling. */
export const clicksBucket = (clicks: number): number =>
  clicks < EXACT_BUCKETS
    ? Math.max(0, clicks)
    : EXACT_BUCKETS + Math.floor(Math.log2(clicks / EXACT_BUCKETS) * BUCKETS_PER_DOUBLING);

/** Whether every link in the bucket has the same count (its index rows are in final order). */
export const isExactBucket = (bucket: number): boolean => bucket < EXACT_BUCKETS;

/** The smallest count of a bucket (so `[clicksBucketStart(b), clicksBucketStart(b + 1))` is its range). */
export const clicksBucketStart = (bucket: number): number => {
  if (bucket <= EXACT_BUCKETS) return bucket;
  let n = Math.ceil(EXACT_BUCKETS * 2 ** ((bucket - EXACT_BUCKETS) / BUCKETS_PER_DOUBLING));
  while (n > EXACT_BUCKETS && clicksBucket(n - 1) >= bucket) n--;
  while (clicksBucket(n) < bucket) n++;
  return n;
};

/** A bucket as the index sorts it (fixed width: 4 digits cover counts far beyond 10^12). */
export const clicksBucketKey = (bucket: number): string => String(bucket).padStart(4, '0');

export const clicksSortKey = (link: Pick<LinkRecord, 'id' | 'createdAt' | 'clicks'>, clicks = link.clicks): string =>
  `${clicksBucketKey(clicksBucket(clicks))}#${link.createdAt}#${link.id}`;

/** The bucket of a clicks index row (its sort key's first field). */
export const bucketOfClicksRow = (sortKey: string): number => Number(sortKey.slice(0, 4));

const indexKeysIn = (partition: string, link: LinkRecord) => ({
  gsi1pk: partition,
  gsi1sk: linkSortKey(link, 'created'),
  gsi2pk: partition,
  gsi2sk: linkSortKey(link, 'updated'),
});

/** The link item's own index keys: the unfiltered partition, in the time orders and the clicks order. */
export const linkItemIndexKeys = (link: LinkRecord) => {
  const partition = linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'all' });
  return { ...indexKeysIn(partition, link), gsi3pk: partition, gsi3sk: clicksSortKey(link) };
};

const tagEntry = (tagId: string) => `TAG#${tagId}`;

/** The list-entry items of a link: one for its domain, one per tag. */
export const linkListEntryItems = (link: LinkRecord) => [
  {
    ...keys.linkListEntry(link.id, 'DOMAIN'),
    type: 'LINK_ENTRY',
    linkId: link.id,
    ...indexKeysIn(
      linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'domain', domain: link.domain }),
      link,
    ),
  },
  ...link.tags.map((tag) => ({
    ...keys.linkListEntry(link.id, tagEntry(tag.id)),
    type: 'LINK_ENTRY',
    linkId: link.id,
    ...indexKeysIn(
      linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'tag', tagName: tag.name }),
      link,
    ),
  })),
];

/** Keys of the tag entries a change leaves behind (tags removed from the link). */
export const staleTagEntryKeys = (previous: LinkRecord, next: LinkRecord) => {
  const kept = new Set(next.tags.map((t) => t.id));
  return previous.tags.filter((t) => !kept.has(t.id)).map((t) => keys.linkListEntry(previous.id, tagEntry(t.id)));
};

/** Every index row (link item or entry) has pk LINK#<id>. */
export const linkIdOfIndexRow = (pk: string): string => pk.slice('LINK#'.length);
