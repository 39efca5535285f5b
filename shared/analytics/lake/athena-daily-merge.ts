import type { LakeStore } from '@shared/admin/lake-store';
import { eventRecordFields } from '@shared/events/event-record';
import { SAFE_ID } from '../query/analytics-engine';
import { COMPACTED_TABLE, DAILY_TABLE, type SqlQuery } from '../query/analytics-sql';
import { runAthenaStatement, type AthenaStatementOptions } from '../query/athena-engine';
import { COMPACTION_UNIT_MAX_SCAN_BYTES } from './compaction-units';
import { COMPACTED_PREFIX, DAILY_PREFIX } from './lake-layout';

/*
 * The daily merge on Athena (the switch-over is described in daily-merge.ts): run by the
 * compaction function, under its run lock, after a run has compacted every closed hour. Per day
 * before the watermark's day, the hourly objects of its workspaces (their sizes from the
 * listing) are packed into statements of at most 100 workspaces (UNLOAD's partition limit) and
 * half the workgroup's cutoff; a workspace-day bigger than that is split into ranges of its
 * objects (`"$path" BETWEEN`). Each statement is one UNLOAD of the hourly rows, minus those the
 * daily files already hold (a statement retried after a failure that wrote files), into
 * compacted/daily/workspace_id=W/month=M/. Only when every statement succeeded does the run
 * move `mergedBefore` in the watermark object; the hourly objects go at the next run.
 */

/** UNLOAD writes at most 100 partitions per statement. */
const MAX_WORKSPACES = 100;
/**
 * A merge statement reads the hourly Parquet it merges, plus the `eventId` and `timestamp` of the
 * daily rows of the same day (the NOT EXISTS; row groups of other days skipped by their
 * statistics): planned at 1.5x the hourly bytes.
 */
const MERGE_SCAN_PER_HOURLY_BYTE = 1.5;

const HOURLY_KEY = /^compacted\/workspace_id=([^/]+)\/dt=(\d{4}-\d{2}-\d{2})\/([^/]+)$/;

export interface HourlyObject {
  key: string;
  workspaceId: string;
  day: string;
  size: number;
}

/** The hourly compacted objects (keys and sizes from the listing). */
export const listHourlyObjects = async (lake: LakeStore): Promise<HourlyObject[]> => {
  const out: HourlyObject[] = [];
  for await (const { key, size } of lake.listSized(`${COMPACTED_PREFIX}workspace_id=`)) {
    const match = HOURLY_KEY.exec(key);
    if (match) out.push({ key, workspaceId: match[1] ?? '', day: match[2] ?? '', size });
  }
  return out;
};

/** Removes the hourly objects of days merged by an earlier run (before `mergedBefore`). */
export const removeMergedHourlyObjects = async (lake: LakeStore, mergedBefore: string): Promise<number> => {
  const due = (await listHourlyObjects(lake)).filter((o) => o.day < mergedBefore).map((o) => o.key);
  await lake.delete(due);
  return due.length;
};

const lakeColumns = eventRecordFields.map((name) => (name === 'timestamp' ? '"timestamp"' : name)).join(', ');
const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** One merge statement: some workspaces' hourly rows of one day (or a range of one workspace's objects). */
export interface MergeStatementScope {
  day: string;
  workspaceIds: string[];
  paths?: { first: string; last: string };
}

/** The UNLOAD of one merge statement (every value a `?` in WHERE; the text varies by placeholders and the bucket). */
export const dailyMergeStatement = (lakeBucket: string, scope: MergeStatementScope): SqlQuery => {
  const { day, workspaceIds } = scope;
  if (workspaceIds.length === 0 || workspaceIds.length > MAX_WORKSPACES)
    throw new Error(`A merge statement takes 1-${MAX_WORKSPACES} workspaces`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(lakeBucket)) throw new Error(`Not a bucket name: ${lakeBucket}`);
  const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10);
  const sql = `UNLOAD (
  SELECT ${lakeColumns}, workspace_id, month
  FROM (
    SELECT ${lakeColumns}, workspace_id, substr(dt, 1, 7) AS month
    FROM ${COMPACTED_TABLE}
    WHERE workspace_id IN (${placeholders(workspaceIds.length)})
      AND dt = ?${scope.paths ? '\n      AND "$path" BETWEEN ? AND ?' : ''}
  ) hourly
  WHERE NOT EXISTS (
    SELECT 1
    FROM ${DAILY_TABLE} done
    WHERE done.workspace_id IN (${placeholders(workspaceIds.length)})
      AND done.month = ?
      AND done."timestamp" >= ?
      AND done."timestamp" < ?
      AND done.workspace_id = hourly.workspace_id
      AND done.eventId = hourly.eventId
  )
  ORDER BY eventId
) TO 's3://${lakeBucket}/${DAILY_PREFIX}'
WITH (format = 'PARQUET', compression = 'ZSTD', partitioned_by = ARRAY['workspace_id', 'month'])`;
  return {
    sql,
    params: [
      ...workspaceIds,
      day,
      ...(scope.paths ? [scope.paths.first, scope.paths.last] : []),
      ...workspaceIds,
      day.slice(0, 7),
      day,
      next,
    ],
  };
};

/**
 * The statements merging every day before `before` (oldest first), from the hourly listing:
 * each estimated at no more than `maxScanBytes`.
 */
export const planDailyMerge = (
  lakeBucket: string,
  hourly: readonly HourlyObject[],
  before: string,
  maxScanBytes = COMPACTION_UNIT_MAX_SCAN_BYTES,
): Array<MergeStatementScope & { estimatedScanBytes: number }> => {
  const byDay = new Map<string, Map<string, HourlyObject[]>>();
  for (const o of hourly) {
    if (o.day >= before || !SAFE_ID.test(o.workspaceId)) continue;
    const day = byDay.get(o.day) ?? new Map<string, HourlyObject[]>();
    day.set(o.workspaceId, [...(day.get(o.workspaceId) ?? []), o]);
    byDay.set(o.day, day);
  }
  const estimate = (objects: readonly HourlyObject[]) =>
    Math.ceil(objects.reduce((sum, o) => sum + o.size, 0) * MERGE_SCAN_PER_HOURLY_BYTE);
  const out: Array<MergeStatementScope & { estimatedScanBytes: number }> = [];
  for (const [day, workspaces] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
    let open: { workspaceIds: string[]; objects: HourlyObject[] } = { workspaceIds: [], objects: [] };
    const flush = () => {
      if (open.workspaceIds.length > 0)
        out.push({ day, workspaceIds: open.workspaceIds, estimatedScanBytes: estimate(open.objects) });
      open = { workspaceIds: [], objects: [] };
    };
    for (const [workspaceId, objects] of [...workspaces].sort(([a], [b]) => a.localeCompare(b))) {
      if (estimate(objects) > maxScanBytes) {
        // Too big for one statement: ranges of its objects, by key.
        let range: HourlyObject[] = [];
        const push = () => {
          out.push({
            day,
            workspaceIds: [workspaceId],
            paths: {
              first: `s3://${lakeBucket}/${range[0]?.key ?? ''}`,
              last: `s3://${lakeBucket}/${range.at(-1)?.key ?? ''}`,
            },
            estimatedScanBytes: estimate(range),
          });
          range = [];
        };
        for (const object of [...objects].sort((a, b) => a.key.localeCompare(b.key))) {
          if (range.length > 0 && estimate([...range, object]) > maxScanBytes) push();
          range.push(object);
        }
        if (range.length > 0) push();
        continue;
      }
      if (open.workspaceIds.length >= MAX_WORKSPACES || estimate([...open.objects, ...objects]) > maxScanBytes) flush();
      open.workspaceIds.push(workspaceId);
      open.objects.push(...objects);
    }
    flush();
  }
  return out;
};

export interface AthenaDailyMergeOptions extends AthenaStatementOptions {
  lake: LakeStore;
  lakeBucket: string;
  deadline: number;
  unitReserveMs?: number;
  maxScanBytes?: number;
}

/**
 * Runs the merge of every day before `before`. `complete` is true when every statement ran (the
 * caller then records `mergedBefore = before`); a deadline or a failure leaves it false (a failure
 * throws): the next run merges the same days again, writing only rows the daily files lack.
 */
export const mergeDailyOnAthena = async (
  options: AthenaDailyMergeOptions,
  before: string,
): Promise<{ statements: number; workspaceDays: number; complete: boolean }> => {
  const now = options.now ?? Date.now;
  const plan = planDailyMerge(options.lakeBucket, await listHourlyObjects(options.lake), before, options.maxScanBytes);
  let statements = 0;
  const merged = new Set<string>();
  for (const scope of plan) {
    if (now() > options.deadline - (options.unitReserveMs ?? 0))
      return { statements, workspaceDays: merged.size, complete: false };
    await runAthenaStatement(options, dailyMergeStatement(options.lakeBucket, scope), options.deadline, {
      results: false,
    });
    statements += 1;
    for (const ws of scope.workspaceIds) merged.add(`${ws}/${scope.day}`);
  }
  return { statements, workspaceDays: merged.size, complete: true };
};
