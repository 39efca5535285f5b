import { walkIndex } from '@shared/db/index-walk';
import type { Pagination } from '@shared/http/api-types';
import { compareSortKeys, positionFromCursor, toPage } from '@shared/pagination/page';
import { escapedJsonBytes } from '@shared/pagination/response-budget';
import type { LinkSort, ListLinksQuery } from '@shared/schemas/list-schemas';
import {
  bucketOfClicksRow,
  CLICKS_INDEX,
  clicksBucket,
  clicksBucketKey,
  isExactBucket,
  linkIdOfIndexRow,
  linkListPartition,
  linkSortIndex,
  linkSortKey,
  type LinkListFilter,
  type LinkTimeSort,
} from './link-index';
import { shortLinkOf, type LinkRecord, type LinkType } from './link-record';
import { linkRepository } from './link-repository';
import { toLinkResource, type LinkResource } from './link-view';
import { unicodeFormOf, uriOf } from '@shared/util/http-url';

/**
 * GET /v1/links and GET /v1/deep-links (cursor pages, sorts and filters).
 *
 * What is indexed (link-index.ts): per workspace, type and archived flag, the creation and
 * update order (gsi1, gsi2), each also narrowed to one domain or one tag. So these lists are
 * one Query per page plus one BatchGet of the page's items:
 *   sort created_at_* / updated_at_*, with or without `domain` or `tag` (not both).
 * What is filtered in memory, over the index partition in order until `limit + 1` matches:
 *   `search` (substring match needs the item), and `domain` when `tag` is also given (the tag
 *   partition is walked, the domain checked on each item).
 * What is sorted by bucket: `clicks_*` walks the clicks index (gsi3, bucketed counts: a click
 * writes it only when it crosses a bucket) from the cursor's bucket, sorting coarse buckets in
 * memory; filters (domain, tag, search) are checked on each item read.
 *
 * Cost per page (eventually consistent reads, link items of 1-4 KB, index rows ~120 B):
 *   indexed:  index Query ~0.5 RCU per 34 rows + 0.5 RCU per item read: limit 25 ~ 14 RCU,
 *             limit 100 ~ 52 RCU.
 *   filtered: 0.5 RCU per item examined, in chunks of 100, until limit + 1 match.
 *   clicks:   0.5 RCU per link read: the page, plus the rest of a coarse bucket (~9% wide
 *             counts), plus what filters reject; never the whole partition.
 *
 * Every item read is re-checked against the query (workspace, type, archived, domain, tag,
 * and its index sort key), so a lagging index never shows a wrong or a duplicated record.
 */
const FILTERED_CHUNK = 100;
const CLICKS_CHUNK = 100;

/**
 * The clicks order, bounded (link-index.ts): walks the clicks index from the cursor's bucket,
 * reading items a chunk at a time; an exact bucket's rows are already in order, a coarse bucket
 * is read whole and sorted by the exact counter. Stops once `want` links are accepted and the
 * bucket in hand is complete, so a page reads at most `want` links plus one coarse bucket (plus
 * what filters reject), never the whole workspace.
 */
const walkClicksOrder = async (walk: {
  partition: string;
  descending: boolean;
  from: number | undefined;
  want: number;
  accept: (link: LinkRecord) => boolean;
  order: (a: LinkRecord, b: LinkRecord) => number;
}): Promise<LinkRecord[]> => {
  const found: LinkRecord[] = [];
  let pending: string[] = [];
  let pendingBucket: number | null = null;
  const flush = async () => {
    const items = await linkRepository.findByIds(pending);
    const links = pending.map((id) => items.get(id)).filter((l): l is LinkRecord => l !== undefined && walk.accept(l));
    found.push(...links.sort(walk.order));
    pending = [];
  };
  // Descending from bucket b: keys below bucket b + 1; ascending: keys above the bare bucket b.
  const after = walk.from === undefined ? undefined : clicksBucketKey(walk.descending ? walk.from + 1 : walk.from);
  for await (const rows of walkIndex({
    index: CLICKS_INDEX,
    partition: walk.partition,
    descending: walk.descending,
    after,
    chunkSize: CLICKS_CHUNK,
  })) {
    for (const row of rows) {
      const bucket = bucketOfClicksRow(row.sortKey);
      if (pendingBucket !== null && bucket !== pendingBucket) {
        await flush();
        if (found.length >= walk.want) return found.sort(walk.order);
      }
      pendingBucket = bucket;
      pending.push(linkIdOfIndexRow(row.pk));
      if (isExactBucket(bucket) && pending.length >= CLICKS_CHUNK) {
        await flush();
        if (found.length >= walk.want) return found.sort(walk.order);
      }
    }
  }
  if (pending.length > 0) await flush();
  return found.sort(walk.order);
};

/** A link's size in the response (pages stop before Lambda's 6 MB limit: pagination/page.ts). */
const renderedBytes = (link: LinkRecord) => escapedJsonBytes(toLinkResource(link));

type ClicksPosition = { clicks: number; key: string };

const timeSortOf = (sort: LinkSort): LinkTimeSort | 'clicks' =>
  sort.startsWith('created') ? 'created' : sort.startsWith('updated') ? 'updated' : 'clicks';

/**
 * Case-insensitive substring of title, destination URL (as stored and answered, normalised, or in
 * its Unicode form: `bücher` finds `https://xn--bcher-kva.example/` and `日本` a percent-encoded
 * path), short link, key, domain or a tag name.
 */
export const linkMatchesSearch = (link: LinkRecord, search: string): boolean => {
  const needle = search.toLowerCase();
  const haystack = [
    link.title,
    link.url,
    uriOf(link.url),
    unicodeFormOf(link.url),
    shortLinkOf(link.domain, link.key),
    link.key,
    link.domain,
    ...link.tags.map((t) => t.name),
  ];
  return haystack.some((field) => field.toLowerCase().includes(needle));
};

export const listLinks = async (
  workspaceId: string,
  linkType: LinkType,
  query: ListLinksQuery,
): Promise<{ data: LinkResource[]; pagination: Pagination }> => {
  const tag = query.tag?.toLowerCase();
  const cursorQuery = {
    list: linkType,
    workspaceId,
    search: query.search?.toLowerCase() ?? null,
    tag: tag ?? null,
    domain: query.domain ?? null,
    archived: query.archived,
    sort: query.sort,
  };
  const filter: LinkListFilter = tag
    ? { kind: 'tag', tagName: tag }
    : query.domain
      ? { kind: 'domain', domain: query.domain }
      : { kind: 'all' };
  const partition = linkListPartition(workspaceId, linkType, query.archived, filter);
  const matches = (link: LinkRecord) =>
    link.workspaceId === workspaceId &&
    link.linkType === linkType &&
    link.archived === query.archived &&
    (query.domain === undefined || link.domain === query.domain) &&
    (tag === undefined || link.tags.some((t) => t.name.toLowerCase() === tag)) &&
    (query.search === undefined || linkMatchesSearch(link, query.search));
  const descending = query.sort.endsWith('_desc');
  const sort = timeSortOf(query.sort);
  const want = query.limit + 1;

  if (sort === 'clicks') {
    const position = await positionFromCursor<ClicksPosition>(query.cursor, cursorQuery);
    const order = (a: ClicksPosition, b: ClicksPosition) =>
      a.clicks !== b.clicks
        ? descending
          ? b.clicks - a.clicks
          : a.clicks - b.clicks
        : compareSortKeys(a.key, b.key, descending);
    const positionOf = (link: LinkRecord): ClicksPosition => ({
      clicks: link.clicks,
      key: linkSortKey(link, 'created'),
    });
    const found = await walkClicksOrder({
      partition: linkListPartition(workspaceId, linkType, query.archived, { kind: 'all' }),
      descending,
      from: position === undefined ? undefined : clicksBucket(position.clicks),
      want,
      accept: (link) => matches(link) && (position === undefined || order(positionOf(link), position) > 0),
      order: (a, b) => order(positionOf(a), positionOf(b)),
    });
    const page = await toPage(found, query.limit, positionOf, cursorQuery, renderedBytes);
    return { data: page.items.map(toLinkResource), pagination: page.pagination };
  }

  const after = await positionFromCursor<string>(query.cursor, cursorQuery);
  const inMemoryFilter = query.search !== undefined || (tag !== undefined && query.domain !== undefined);
  const found: LinkRecord[] = [];
  const walk = walkIndex({
    index: linkSortIndex[sort],
    partition,
    descending,
    after,
    chunkSize: inMemoryFilter ? FILTERED_CHUNK : want,
  });
  for await (const rows of walk) {
    const items = await linkRepository.findByIds(rows.map((r) => linkIdOfIndexRow(r.pk)));
    for (const row of rows) {
      const link = items.get(linkIdOfIndexRow(row.pk));
      // A row whose sort key is not the item's is a stale index row (the link moved since).
      if (link && matches(link) && linkSortKey(link, sort) === row.sortKey) found.push(link);
      if (found.length === want) break;
    }
    if (found.length === want) break;
  }
  const page = await toPage(found, query.limit, (link) => linkSortKey(link, sort), cursorQuery, renderedBytes);
  return { data: page.items.map(toLinkResource), pagination: page.pagination };
};
