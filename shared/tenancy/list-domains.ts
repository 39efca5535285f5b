import type { Pagination } from '@shared/http/api-types';
import { compareSortKeys, positionFromCursor, toPage } from '@shared/pagination/page';
import type { ListDomainsQuery } from '@shared/schemas/list-schemas';
import { domainRepository } from './domain-repository';
import { toDomainResource, type DomainResource } from './domain-view';
import type { DomainRecord } from './tenancy-types';

/**
 * GET /v1/domains. A workspace has few domains (they are provisioned by an admin),
 * all in its own item collection (pk WS#id, sk DOMAIN#...): one Query reads them all
 * (0.5 RCU per 4 KB, so about 0.5-1 RCU for a typical workspace), then `archived`, `domain` and
 * `search` (a substring of the domain name, ignoring case: domains are stored lower-cased) are
 * filtered and the sort applied in memory. The cursor holds the last `${time}#${id}` returned.
 */
export const listDomains = async (
  workspaceId: string,
  query: ListDomainsQuery,
): Promise<{ data: DomainResource[]; pagination: Pagination }> => {
  const cursorQuery = {
    list: 'DOMAIN',
    workspaceId,
    search: query.search?.toLowerCase() ?? null,
    domain: query.domain ?? null,
    archived: query.archived,
    sort: query.sort,
  };
  const after = await positionFromCursor<string>(query.cursor, cursorQuery);
  const descending = query.sort.endsWith('_desc');
  const sortKey = (d: DomainRecord) => `${query.sort.startsWith('created') ? d.createdAt : d.updatedAt}#${d.id}`;
  const needle = query.search?.toLowerCase();
  const matching = (await domainRepository.listByWorkspace(workspaceId))
    .filter(
      (d) =>
        d.archived === query.archived &&
        (query.domain === undefined || d.domain === query.domain) &&
        (needle === undefined || d.domain.toLowerCase().includes(needle)),
    )
    .sort((a, b) => compareSortKeys(sortKey(a), sortKey(b), descending))
    .filter((d) => after === undefined || compareSortKeys(sortKey(d), after, descending) > 0);
  const page = await toPage(matching.slice(0, query.limit + 1), query.limit, sortKey, cursorQuery);
  return { data: page.items.map(toDomainResource), pagination: page.pagination };
};

/** GET /v1/domains/{domainId}: the workspace's domain (another workspace's id is 404). */
export const getDomainResourceOrThrow = async (workspaceId: string, domainId: string): Promise<DomainResource> =>
  toDomainResource(await domainRepository.getByIdOrThrow(workspaceId, domainId));
