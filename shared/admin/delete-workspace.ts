/**
 * `admin delete-workspace`: erases every table item of one workspace (see workspace-items.ts
 * for how they are found) in batches, then its lake data (erase-workspace-lake.ts) and the
 * copies of its events elsewhere (kept failures, query results: erase-workspace-copies.ts), and
 * counts what went, per kind. Other workspaces' items are never selected. First of all it records
 * the workspace's tombstone (erased-workspaces.ts): the copies no erasure can reach (spooled
 * messages, kept batches written later, downloaded errors/ objects) are dropped by their replays.
 */
import { recordErasure } from '@shared/tenancy/erased-workspaces';
import { batchDeleteKeys } from './batch-delete';
import { eraseQueryResults, eraseWorkspaceKeptFailures, type KeptFailuresErasure } from './erase-workspace-copies';
import { eraseWorkspaceLake, type LakeErasure } from './erase-workspace-lake';
import type { LakeStore } from './lake-store';
import { collectWorkspaceItems, kindOfItem, type WalkOptions } from './workspace-items';

export interface WorkspaceErasure {
  workspaceId: string;
  /** Until when replays drop the workspace's events (its tombstone's expiry). */
  tombstoneUntil: string;
  /** Table items erased, per kind (item type or key prefix). */
  itemsErased: Record<string, number>;
  totalItemsErased: number;
  /** Items both Scans read to find them. */
  itemsScanned: number;
  /** BatchWriteItem calls re-sent for unprocessed items. */
  batchRetries: number;
  lake: LakeErasure;
  /** Its records removed from the stream consumers' kept failures (erase-workspace-copies.ts). */
  keptFailures: KeptFailuresErasure[];
  /** Athena query results deleted (all of them: a result does not name its workspace); null: not given. */
  queryResultsDeleted: number | null;
  /**
   * Its domain names: deployed, their CloudFront distribution tenants and certificates live
   * outside the table (`admin domains remove <domain>` for each; docs/operations.md).
   */
  domains: string[];
}

export interface DeleteOptions extends WalkOptions {
  onFound?: (total: number) => void;
  onDeleted?: (n: number) => void;
  /** Called for each raw lake object read. */
  onLakeObject?: () => void;
  /** The stream consumers' kept failures (failures buckets, or the local folder). */
  keptFailures?: LakeStore[];
  /** The Athena query results bucket. */
  queryResults?: LakeStore;
}

export const deleteWorkspace = async (
  workspaceId: string,
  lake: LakeStore,
  options: DeleteOptions = {},
): Promise<WorkspaceErasure> => {
  const tombstoneUntil = await recordErasure(workspaceId);
  const { items, scanned } = await collectWorkspaceItems(workspaceId, options);
  options.onFound?.(items.length);
  const itemsErased: Record<string, number> = {};
  for (const item of items) {
    const kind = kindOfItem(item);
    itemsErased[kind] = (itemsErased[kind] ?? 0) + 1;
  }
  // The workspace item last: a run cut short can be run again and still finds the rest.
  const ordered = [...items.filter((i) => i.sk !== 'WORKSPACE'), ...items.filter((i) => i.sk === 'WORKSPACE')];
  const { retries } = await batchDeleteKeys(
    ordered.map(({ pk, sk }) => ({ pk, sk })),
    { onDeleted: options.onDeleted },
  );
  const lakeErasure = await eraseWorkspaceLake(lake, workspaceId, options.onLakeObject);
  const keptFailures: KeptFailuresErasure[] = [];
  // The click-log lines of kept batches name a link, not a workspace: its links' `host/key`.
  const linkPaths = new Set(
    items
      .filter((i) => i.type === 'LINK' && typeof i.domain === 'string' && typeof i.key === 'string')
      .map((i) => `${String(i.domain).toLowerCase()}/${String(i.key)}`),
  );
  for (const store of options.keptFailures ?? [])
    keptFailures.push(await eraseWorkspaceKeptFailures(store, workspaceId, linkPaths));
  const queryResultsDeleted = options.queryResults ? await eraseQueryResults(options.queryResults) : null;
  return {
    workspaceId,
    tombstoneUntil: tombstoneUntil.toISOString(),
    itemsErased,
    totalItemsErased: items.length,
    itemsScanned: scanned,
    batchRetries: retries,
    lake: lakeErasure,
    keptFailures,
    queryResultsDeleted,
    domains: items
      .filter((i) => i.type === 'DOMAIN')
      .map((i) => String(i.domain))
      .sort(),
  };
};
