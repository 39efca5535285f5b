import type { Pagination } from '@shared/http/api-types';
import { keys } from '@shared/db/keys';
import { positionFromCursor, toPage } from '@shared/pagination/page';
import { auditRetentionMs } from '@shared/config/audit-retention';
import { toAuditEntryResource, type AuditEntry, type AuditEntryResource } from './audit-entry';
import { auditRepository, auditSortKey, type AuditPartition } from './audit-repository';
import type { ListAuditLogQuery } from './audit-schemas';

/** Entries read per Query when filters are checked in memory. */
const FILTERED_CHUNK = 100;
/** Above every `<occurredAt>#<id>` sort key of a time (`#` sorts before `~`). */
const AFTER_TIME = '~';

/**
 * GET /v1/audit-log: newest first. One filter is served by its partition (audit-repository.ts
 * lists them); the others are checked on each entry read; `from` / `to` and the retention bound
 * the sort key. Every entry read is re-checked against the whole query.
 */
export const listAuditLog = async (
  workspaceId: string,
  query: ListAuditLogQuery,
  now = Date.now(),
): Promise<{ data: AuditEntryResource[]; pagination: Pagination }> => {
  const cursorQuery = {
    list: 'audit-log',
    workspaceId,
    action: query.action ?? null,
    resourceId: query.resourceId ?? null,
    keyId: query.keyId ?? null,
    from: query.from ?? null,
    to: query.to ?? null,
  };
  const after = await positionFromCursor<string>(query.cursor, cursorQuery);
  const retentionStart = new Date(now - auditRetentionMs()).toISOString();
  const from = query.from !== undefined && query.from > retentionStart ? query.from : retentionStart;
  const upper = query.to === undefined ? AFTER_TIME : `${query.to}${AFTER_TIME}`;
  const to = after !== undefined && after < upper ? after : upper;
  const empty = { data: [], pagination: { limit: query.limit, nextCursor: null, hasMore: false } };
  if (from > to) return empty;

  const partition: Omit<AuditPartition, 'from' | 'to' | 'workspaceId'> =
    query.resourceId !== undefined
      ? { index: 'gsi2', partition: keys.auditByResource(workspaceId, query.resourceId) }
      : query.keyId !== undefined
        ? { index: 'gsi3', partition: keys.auditByKey(workspaceId, query.keyId) }
        : query.action !== undefined
          ? { index: 'gsi1', partition: keys.auditByAction(workspaceId, query.action) }
          : { partition: keys.auditEntriesOf(workspaceId).pk };
  const filtersInMemory =
    [query.resourceId, query.keyId, query.action].filter((filter) => filter !== undefined).length > 1;

  const matches = (entry: AuditEntry) => {
    const sortKey = auditSortKey(entry);
    return (
      entry.workspaceId === workspaceId &&
      sortKey >= from &&
      sortKey <= upper &&
      (after === undefined || sortKey < after) &&
      (query.action === undefined || entry.action === query.action) &&
      (query.resourceId === undefined || (entry.resourceIds ?? [entry.resource.id]).includes(query.resourceId)) &&
      (query.keyId === undefined || (entry.actor.type === 'api_key' && entry.actor.keyId === query.keyId))
    );
  };
  const want = query.limit + 1;
  const found: AuditEntry[] = [];
  // The cursor's own entry is the bound's first row: one more row per chunk covers it.
  const chunkSize = filtersInMemory ? FILTERED_CHUNK : want + 1;
  for await (const entries of auditRepository.walk({ ...partition, workspaceId, from, to }, chunkSize)) {
    for (const entry of entries) {
      if (matches(entry)) found.push(entry);
      if (found.length === want) break;
    }
    if (found.length === want) break;
  }
  const page = await toPage(found, query.limit, auditSortKey, cursorQuery);
  return { data: page.items.map(toAuditEntryResource), pagination: page.pagination };
};
