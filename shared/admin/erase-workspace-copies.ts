/**
 * The copies of a workspace's events outside the table and the lake, erased by `admin
 * delete-workspace` with them:
 *
 * - **Kept failures** of the stream consumers (kept-failures.ts): each kept batch that holds a
 *   record of the workspace is rewritten without it (deleted when nothing else is left). A kept
 *   batch of the edge click-log consumer holds real-time log lines, which name no workspace: a
 *   line is the workspace's when it names one of the workspace's links (`linkPaths`, the
 *   `host/key` of each, as the hot-link store keys them; a shared domain's other links stay).
 * - **Athena query results** (the analytics results bucket, `athena/`): a result object does not
 *   say whose query it answered, so every one is deleted. They are a cache (expired after 7 days
 *   anyway); queries run again.
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { hotKeyOf } from '@shared/edge/hot-links/edge-answer';
import { parseRealtimeLogLine, realtimeLogLines } from '@shared/edge/hot-links/realtime-log';
import {
  kinesisDataOf,
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

/** Whether a real-time log line names one of `linkPaths` (`host/key`, by `cs-host` or `x-host-header`). */
const namesLink = (line: string, linkPaths: ReadonlySet<string>): boolean => {
  const record = parseRealtimeLogLine(line);
  if (!record) return false;
  const uri = (record['cs-uri-stem'] ?? '').split('?', 1)[0] ?? '';
  return [record['cs-host'], record['x-host-header']].some((host) => {
    const path = hotKeyOf({ method: 'GET', host, uri, userAgent: null });
    return path !== null && linkPaths.has(path);
  });
};

/**
 * A click-log record without the lines of `linkPaths` (undefined when none is left), and how
 * many lines went.
 */
const withoutLinkLines = (
  record: KinesisStreamRecord,
  linkPaths: ReadonlySet<string>,
): { record: KinesisStreamRecord | undefined; removed: number } => {
  const lines = realtimeLogLines(kinesisDataOf(record));
  const left = lines.filter((line) => !namesLink(line, linkPaths));
  const removed = lines.length - left.length;
  if (removed === 0) return { record, removed };
  if (left.length === 0) return { record: undefined, removed };
  const data = Buffer.from(left.map((line) => `${line}\n`).join('')).toString('base64');
  return { record: { ...record, kinesis: { ...record.kinesis, data } }, removed };
};

/**
 * Rewrites the kept failures of `store` without the records of `workspaceId`; for the edge
 * click-log consumer's batches, without the log lines of `linkPaths` (the workspace's links,
 * `host/key`, lower-case host).
 */
export const eraseWorkspaceKeptFailures = async (
  store: LakeStore,
  workspaceId: string,
  linkPaths: ReadonlySet<string> = new Set(),
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
    let kept: unknown[];
    let removed: number;
    if (failure.kind === 'edge-click-logs') {
      // Lines (not records) are removed, and counted; a record whose lines all go is removed whole.
      const rewritten = failure.records.map((r) => withoutLinkLines(r, linkPaths));
      kept = rewritten.flatMap((r) => (r.record ? [r.record] : []));
      removed = rewritten.reduce((n, r) => n + r.removed, 0);
    } else {
      kept =
        failure.kind === 'kinesis'
          ? failure.records.filter((r) => workspaceOfKinesisRecord(r) !== workspaceId)
          : failure.records.filter((r) => workspaceOfTableRecord(r) !== workspaceId);
      removed = records.length - kept.length;
    }
    if (removed === 0) continue;
    result.recordsRemoved += removed;
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
