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
 * Indexes are KEYS_ONLY: a list Queries ids, then BatchGets the page's link items. Click
 * counters are not index keys, so a click never writes to an index.
 */
export type LinkListFilter = { kind: 'all' } | { kind: 'domain'; domain: string } | { kind: 'tag'; tagName: string };

export const linkListPartition = (workspaceId: string, linkType: LinkType, archived: boolean, filter: LinkListFilter): string => {
  const base = `${workspaceId}#${linkType}#${archived ? 1 : 0}`;
  if (filter.kind === 'domain') return `${base}#DOMAIN#${filter.domain.toLowerCase()}`;
  if (filter.kind === 'tag') return `${base}#TAG#${filter.tagName.toLowerCase()}`;
  return base;
};

export type LinkTimeSort = 'created' | 'updated';

export const linkSortIndex: Record<LinkTimeSort, IndexName> = { created: 'gsi1', updated: 'gsi2' };

export const linkSortKey = (link: Pick<LinkRecord, 'id' | 'createdAt' | 'updatedAt'>, sort: LinkTimeSort): string =>
  `${sort === 'created' ? link.createdAt : link.updatedAt}#${link.id}`;

const indexKeysIn = (partition: string, link: LinkRecord) => ({
  gsi1pk: partition,
  gsi1sk: linkSortKey(link, 'created'),
  gsi2pk: partition,
  gsi2sk: linkSortKey(link, 'updated'),
});

/** The link item's own index keys: the unfiltered partition. */
export const linkItemIndexKeys = (link: LinkRecord) =>
  indexKeysIn(linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'all' }), link);

const tagEntry = (tagId: string) => `TAG#${tagId}`;

/** The list-entry items of a link: one for its domain, one per tag. */
export const linkListEntryItems = (link: LinkRecord) => [
  {
    ...keys.linkListEntry(link.id, 'DOMAIN'),
    type: 'LINK_ENTRY',
    linkId: link.id,
    ...indexKeysIn(linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'domain', domain: link.domain }), link),
  },
  ...link.tags.map((tag) => ({
    ...keys.linkListEntry(link.id, tagEntry(tag.id)),
    type: 'LINK_ENTRY',
    linkId: link.id,
    ...indexKeysIn(linkListPartition(link.workspaceId, link.linkType, link.archived, { kind: 'tag', tagName: tag.name }), link),
  })),
];

/** Keys of the tag entries a change leaves behind (tags removed from the link). */
export const staleTagEntryKeys = (previous: LinkRecord, next: LinkRecord) => {
  const kept = new Set(next.tags.map((t) => t.id));
  return previous.tags.filter((t) => !kept.has(t.id)).map((t) => keys.linkListEntry(previous.id, tagEntry(t.id)));
};

/** Every index row (link item or entry) has pk LINK#<id>. */
export const linkIdOfIndexRow = (pk: string): string => pk.slice('LINK#'.length);
