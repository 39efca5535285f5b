/**
 * Every table item of one workspace, for `admin export-workspace` and `admin delete-workspace`.
 *
 * Most key shapes (keys.ts) carry no workspace in a queryable position (LINK#id, SLUG#host#key,
 * APIKEY#hash, IDEM#ws#route#hash, RATE#ws#kind#window#shard, ...), and several are keyed by an
 * id of another item (PWTRY#linkId#client, ORIGIN#origin / APIKEY#hash, HOST#name,
 * REPLAY#endpointId#event, WEBHOOKSENT#endpointId#event). So the walk is two paged, parallel Scans of the table (bounded by
 * `pageSize` items per call; memory holds only the workspace's own ids):
 *   1. items that name the workspace: a `workspaceId` attribute (or `event.workspaceId` on
 *      outbox / replay items), or a workspace-scoped key prefix whose second segment is the id;
 *      the owned ids (links, key hashes, webhook endpoints, domain names) are noted;
 *   2. items without a workspace of their own, keyed by one of those ids.
 * An item whose `workspaceId` names another workspace is never taken.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';

export type TableItem = Record<string, unknown> & { pk: string; sk: string };

/** Key prefixes whose second `#` segment is the workspace id (keys.ts). */
const WORKSPACE_PREFIXES = new Set([
  'WS',
  'IDEM',
  'FP',
  'OPEN',
  'CEVT',
  'RATE',
  'ANALYTICS',
  'WEBHOOKS',
  'EVENTLOG',
  'CONVERSIONS',
]);

/** The ids a workspace's items lend to items keyed by them. */
export interface OwnedIds {
  linkIds: Set<string>;
  keyHashes: Set<string>;
  endpointIds: Set<string>;
  hostnames: Set<string>;
}

export const emptyOwnedIds = (): OwnedIds => ({
  linkIds: new Set(),
  keyHashes: new Set(),
  endpointIds: new Set(),
  hostnames: new Set(),
});

/** The workspace an item names itself, if any (attribute, event, or a workspace-scoped key). */
export const workspaceOfItem = (item: TableItem): string | undefined => {
  if (typeof item.workspaceId === 'string') return item.workspaceId;
  const event = item.event as { workspaceId?: unknown } | undefined;
  if (event && typeof event.workspaceId === 'string') return event.workspaceId;
  const [prefix, id] = item.pk.split('#');
  return prefix && id && WORKSPACE_PREFIXES.has(prefix) ? id : undefined;
};

/** Pass 1: notes the ids an owned item lends to other items. */
export const noteOwnedIds = (item: TableItem, ids: OwnedIds): void => {
  if (item.type === 'LINK' && typeof item.id === 'string') ids.linkIds.add(item.id);
  if (item.type === 'APIKEY' && typeof item.keyHash === 'string') ids.keyHashes.add(item.keyHash);
  if (item.type === 'WEBHOOK' && typeof item.id === 'string') ids.endpointIds.add(item.id);
  if (item.type === 'DOMAIN' && typeof item.domain === 'string') ids.hostnames.add(item.domain.toLowerCase());
};

/** Pass 2: an item with no workspace of its own, keyed by (or pointing at) an owned id. */
export const isDependentItem = (item: TableItem, ids: OwnedIds): boolean => {
  if (workspaceOfItem(item) !== undefined) return false;
  const [prefix, first] = item.pk.split('#');
  switch (prefix) {
    case 'LINK':
    case 'PWTRY':
      return ids.linkIds.has(first ?? '');
    case 'APIKEY':
      return ids.keyHashes.has(first ?? '');
    case 'ORIGIN':
      return item.sk.startsWith('APIKEY#') && ids.keyHashes.has(item.sk.slice('APIKEY#'.length));
    case 'HOST':
      return ids.hostnames.has(item.pk.slice('HOST#'.length));
    case 'REPLAY':
    case 'WEBHOOKSENT':
      return ids.endpointIds.has(first ?? '');
    default:
      return typeof item.linkId === 'string' && ids.linkIds.has(item.linkId);
  }
};

/** The kind an item is counted under: its `type`, else its key prefix. */
export const kindOfItem = (item: TableItem): string =>
  typeof item.type === 'string' ? item.type : (item.pk.split('#')[0] ?? 'UNKNOWN');

export interface WalkOptions {
  /** Items per Scan call (each call reads at most 1 MB anyway). */
  pageSize?: number;
  /** Parallel Scan segments. */
  segments?: number;
  /** Called after each page with the items it read (progress). */
  onPage?: (scanned: number) => void;
  /** A server-side filter: only the items it matches reach `visit` (every item is still read). */
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

/** One paged, parallel Scan of the whole table; `visit` sees every item (or every filtered one) once. */
export const scanTable = async (visit: (item: TableItem) => void, options: WalkOptions = {}): Promise<number> => {
  const segments = options.segments ?? 4;
  let scanned = 0;
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await getDocumentClient().send(
          new ScanCommand({
            TableName: tableName(),
            Segment: segment,
            TotalSegments: segments,
            // A filtered scan reads up to 1 MB a page unless told (the filter drops most items).
            Limit: options.pageSize ?? (options.filter ? undefined : 500),
            FilterExpression: options.filter?.expression,
            ExpressionAttributeNames: options.filter?.names,
            ExpressionAttributeValues: options.filter?.values,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of out.Items ?? []) visit(item as TableItem);
        scanned += out.ScannedCount ?? 0;
        options.onPage?.(out.ScannedCount ?? 0);
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    }),
  );
  return scanned;
};

export interface WorkspaceItems {
  items: TableItem[];
  /** Items read by both Scans (what the walk cost). */
  scanned: number;
}

/** Every item of the workspace (both passes). */
export const collectWorkspaceItems = async (
  workspaceId: string,
  options: WalkOptions = {},
): Promise<WorkspaceItems> => {
  const ids = emptyOwnedIds();
  const items: TableItem[] = [];
  const first = await scanTable((item) => {
    if (workspaceOfItem(item) !== workspaceId) return;
    items.push(item);
    noteOwnedIds(item, ids);
  }, options);
  const second = await scanTable((item) => {
    if (isDependentItem(item, ids)) items.push(item);
  }, options);
  return { items, scanned: first + second };
};
