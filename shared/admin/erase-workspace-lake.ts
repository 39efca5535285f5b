/**
 * The one seam through which `admin delete-workspace` erases a workspace's events from the lake
 * (layout: shared/analytics/lake/lake-layout.ts), local folder or deployed bucket alike (lake-store.ts):
 *
 * 1. Raw objects (`events/shard=SS/dt=/hour=/*.json.gz`, gzip; older `.json` plain) are shared by every workspace of a hash
 *    shard: each object of the workspace's shard that holds one of its lines is rewritten
 *    without them, in the encoding it had (deleted when nothing else is left). Only its shard is read: the workspace's
 *    lines land nowhere else (unless LAKE_SHARDS changed since they were written; see
 *    docs/operations.md).
 * 2. Compacted objects (`compacted/workspace_id=W/`, hourly, and `compacted/daily/workspace_id=W/`,
 *    merged days) are the workspace's alone: all deleted.
 *
 * Raw first: a compaction run that read raw lines before step 1 writes them under the compacted
 * prefix, which step 2 then removes (run the command again if a compaction ran meanwhile).
 */
import { compactedWorkspacePath, dailyWorkspacePath, RAW_PREFIX, shardOf } from '@shared/analytics/lake/lake-layout';
import { decodeStoredText, encodeStoredText, isRawObjectName } from '@shared/analytics/lake/raw-objects';
import { assertSafeId } from '@shared/analytics/query/analytics-engine';
import type { LakeStore } from './lake-store';

export interface LakeErasure {
  /** The lake erased: a folder or `s3://bucket`. */
  location: string;
  /** Raw objects read in the workspace's shard. */
  rawObjectsRead: number;
  rawObjectsRewritten: number;
  rawObjectsDeleted: number;
  /** The workspace's lines removed from raw objects. */
  rawRecordsRemoved: number;
  compactedObjectsDeleted: number;
}

const namesWorkspace = (workspaceId: string) => (line: string) => {
  try {
    return (JSON.parse(line) as { workspaceId?: unknown }).workspaceId === workspaceId;
  } catch {
    return false;
  }
};

export const eraseWorkspaceLake = async (
  store: LakeStore,
  workspaceId: string,
  onObject?: () => void,
): Promise<LakeErasure> => {
  assertSafeId(workspaceId, 'workspace id');
  const result: LakeErasure = {
    location: store.location,
    rawObjectsRead: 0,
    rawObjectsRewritten: 0,
    rawObjectsDeleted: 0,
    rawRecordsRemoved: 0,
    compactedObjectsDeleted: 0,
  };
  const isTheirs = namesWorkspace(workspaceId);
  const emptied: string[] = [];
  for await (const key of store.list(`${RAW_PREFIX}shard=${shardOf(workspaceId)}/`)) {
    if (!isRawObjectName(key)) continue;
    result.rawObjectsRead++;
    onObject?.();
    const lines = decodeStoredText(await store.getBytes(key))
      .split('\n')
      .filter(Boolean);
    const kept = lines.filter((l) => !isTheirs(l));
    if (kept.length === lines.length) continue;
    result.rawRecordsRemoved += lines.length - kept.length;
    if (kept.length === 0) emptied.push(key);
    else {
      await store.putBytes(key, encodeStoredText(key, kept.join('\n') + '\n'));
      result.rawObjectsRewritten++;
    }
  }
  await store.delete(emptied);
  result.rawObjectsDeleted = emptied.length;
  const compacted: string[] = [];
  for await (const key of store.list(`${compactedWorkspacePath(workspaceId)}/`)) compacted.push(key);
  for await (const key of store.list(`${dailyWorkspacePath(workspaceId)}/`)) compacted.push(key);
  await store.delete(compacted);
  result.compactedObjectsDeleted = compacted.length;
  return result;
};
