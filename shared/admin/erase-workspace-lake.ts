/**
 * The one seam through which `admin delete-workspace` erases a workspace's events from the lake.
 *
 * Local lake (LOCAL_LAKE_DIR, the layout Firehose's dynamic partitioning writes:
 * events/workspace_id=<id>/dt=/hour=/*.json): the workspace's own partition folder is deleted,
 * and any other object still holding one of its records (a shared object) is rewritten without
 * those lines, through a temporary file and a rename so a reader never sees half an object.
 *
 * The deployed lake (S3) is not erased here yet: the lake layout is being changed
 * (hash-bucketed raw prefix, compacted per-workspace Parquet); its erasure belongs behind this
 * same function. Until then the command says so, and the operator deletes the prefix
 * `events/workspace_id=<id>/` of the lake bucket (docs/operations.md).
 */
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertSafeId } from '@shared/analytics/analytics-engine';

export interface LakeErasure {
  /** Where: `local` (LOCAL_LAKE_DIR) or `not-erased` (no local lake: deployed, see above). */
  lake: 'local' | 'not-erased';
  objectsDeleted: number;
  objectsRewritten: number;
  recordsRemoved: number;
}

const filesUnder = async (dir: string): Promise<string[]> => {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.name.endsWith('.json')) out.push(full);
  }
  return out;
};

const lineOf = (workspaceId: string) => (line: string) => {
  try {
    return (JSON.parse(line) as { workspaceId?: unknown }).workspaceId === workspaceId;
  } catch {
    return false;
  }
};

export const eraseLocalLake = async (lakeDir: string, workspaceId: string): Promise<LakeErasure> => {
  const result: LakeErasure = { lake: 'local', objectsDeleted: 0, objectsRewritten: 0, recordsRemoved: 0 };
  const isTheirs = lineOf(workspaceId);
  const ownDir = path.join(lakeDir, 'events', `workspace_id=${assertSafeId(workspaceId, 'workspace id')}`);
  for (const file of await filesUnder(ownDir)) {
    result.recordsRemoved += (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;
    result.objectsDeleted++;
  }
  await rm(ownDir, { recursive: true, force: true });
  for (const file of await filesUnder(lakeDir)) {
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    const kept = lines.filter((l) => !isTheirs(l));
    if (kept.length === lines.length) continue;
    result.recordsRemoved += lines.length - kept.length;
    if (kept.length === 0) {
      await rm(file);
      result.objectsDeleted++;
    } else {
      const tmp = `${file}.erasing`;
      await writeFile(tmp, kept.join('\n') + '\n');
      await rename(tmp, file);
      result.objectsRewritten++;
    }
  }
  return result;
};

/** Erases the workspace's lake data wherever this process's configuration points. */
export const eraseWorkspaceLake = async (workspaceId: string, lakeDir = process.env.LOCAL_LAKE_DIR): Promise<LakeErasure> =>
  lakeDir ? eraseLocalLake(lakeDir, workspaceId) : { lake: 'not-erased', objectsDeleted: 0, objectsRewritten: 0, recordsRemoved: 0 };
