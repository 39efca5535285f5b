/**
 * The copies of a workspace's events outside the table and the lake, erased by `admin
 * delete-workspace` with them:
 *
 * - **Kept failures** of the stream consumers (kept-failures.ts): each kept batch that holds a
 *   record of the workspace is rewritten without it (deleted when nothing else is left).
 * - **Athena query results** (the analytics results bucket, `athena/`): a result object does not
 *   say whose query it answered, so every one is deleted. They are a cache (expired after 7 days
 *   anyway); queries run again.
 */
import {
  parseKeptFailure,
  workspaceOfKinesisRecord,
  workspaceOfTableRecord,
  type KeptFailureDocument,
} from '@shared/events/kept-failure-record';
import type { LakeStore } from './lake-store';

export interface KeptFailuresErasure {
  location: string;
  objectsRead: number;
  objectsRewritten: number;
  objectsDeleted: number;
  recordsRemoved: number;
}

export const eraseWorkspaceKeptFailures = async (
  store: LakeStore,
  workspaceId: string,
): Promise<KeptFailuresErasure> => {
  const result: KeptFailuresErasure = {
    location: store.location,
    objectsRead: 0,
    objectsRewritten: 0,
    objectsDeleted: 0,
    recordsRemoved: 0,
  };
  const keys: string[] = [];
  for await (const key of store.list('')) keys.push(key);
  for (const key of keys) {
    const text = await store.getText(key);
    result.objectsRead += 1;
    let failure;
    try {
      failure = parseKeptFailure(text);
    } catch {
      continue; // not a kept batch
    }
    const records: unknown[] = failure.records;
    const kept =
      failure.kind === 'kinesis'
        ? failure.records.filter((r) => workspaceOfKinesisRecord(r) !== workspaceId)
        : failure.records.filter((r) => workspaceOfTableRecord(r) !== workspaceId);
    if (kept.length === records.length) continue;
    result.recordsRemoved += records.length - kept.length;
    if (kept.length === 0) {
      await store.delete([key]);
      result.objectsDeleted += 1;
      continue;
    }
    const doc = JSON.parse(text) as KeptFailureDocument;
    const info = doc.KinesisBatchInfo ?? doc.DDBStreamBatchInfo;
    if (info) info.batchSize = kept.length;
    doc.payload = JSON.stringify({ Records: kept });
    await store.putText(key, JSON.stringify(doc));
    result.objectsRewritten += 1;
  }
  return result;
};

/** Deletes every Athena query result (`athena/` of the results bucket); answers how many. */
export const eraseQueryResults = async (store: LakeStore, prefix = 'athena/'): Promise<number> => {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  if (keys.length) await store.delete(keys);
  return keys.length;
};
