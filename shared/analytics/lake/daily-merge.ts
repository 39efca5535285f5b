import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { eventRecordFields } from '@shared/events/event-record';
import { SAFE_ID } from '../query/analytics-engine';
import { compactedRelationSql, dailyRelationSql, getDuckDbInstance, sqlString } from '../query/duckdb-engine';
import { COMPACTED_PREFIX, compactedDayPath, dailyMonthPath } from './lake-layout';

/*
 * The daily merge: a workspace's hourly compacted files of a closed day become one daily file,
 * so a 90-day view opens about one object per day instead of one per hour (S3 GETs), in one
 * partition per workspace and month (S3 LISTs: 4 for 90 days instead of 90):
 *
 *   compacted/workspace_id=W/dt=D/<hourly files>              days not merged yet (today)
 *   compacted/daily/workspace_id=W/month=M/<daily file of D>  merged days
 *
 * The switch-over is the watermark object (compacted/_watermark.json), written LAST by a run:
 * `mergedBefore` (a day, exclusive). Queries read days before it from the daily files only
 * (rows whose timestamp is before that day) and later days from the hourly files only (`dt >=`
 * it), so at every instant each event is read from exactly one copy:
 *   1. a run merges every day before the watermark's day (all its closed hours compacted): for
 *      each workspace with hourly files that day, the daily file becomes (old daily file, if any)
 *      + (hourly files), one row per eventId;
 *   2. then it writes the watermark object with the new `mergedBefore`. A reader holding the old
 *      one reads those days hourly: the hourly files are still there;
 *   3. the NEXT run (an hour later deployed, 10 minutes locally: far past the readers' one-minute
 *      cache) deletes the hourly files of days before the `mergedBefore` it starts with.
 * A late arrival for a merged day is compacted straight into that day's daily files (the
 * compaction run reads `mergedBefore` at its start and holds the run lock, as the merge does), so
 * no hourly file of a merged day appears after the switch. A run that fails between 1 and 2
 * leaves daily files no reader reads yet; the next run merges the day again (one row per
 * eventId), and only then switches.
 */

export interface DailyMergeReport {
  /** Workspace-days merged by this run. */
  workspaceDays: number;
  /** The days merged (sorted). */
  days: string[];
  /** The boundary the run recorded (unchanged when nothing was due). */
  mergedBefore?: string;
}

const HOURLY_DIR = /^workspace_id=([A-Za-z0-9_-]{1,64})$/;
const DAY_DIR = /^dt=(\d{4}-\d{2}-\d{2})$/;

const listDir = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).sort();

/** The hourly day folders of the local lake: workspace, day. */
const hourlyDays = async (lakeDir: string): Promise<Array<{ workspaceId: string; day: string }>> => {
  const out: Array<{ workspaceId: string; day: string }> = [];
  for (const wsDir of await listDir(path.join(lakeDir, COMPACTED_PREFIX))) {
    const workspaceId = HOURLY_DIR.exec(wsDir)?.[1];
    if (workspaceId === undefined || !SAFE_ID.test(workspaceId)) continue;
    for (const dayDir of await listDir(path.join(lakeDir, COMPACTED_PREFIX, wsDir))) {
      const day = DAY_DIR.exec(dayDir)?.[1];
      if (day !== undefined) out.push({ workspaceId, day });
    }
  }
  return out;
};

/** Step 3: removes the hourly folders of days merged by an earlier run (before `mergedBefore`). */
export const removeMergedHourly = async (lakeDir: string, mergedBefore: string): Promise<number> => {
  const due = (await hourlyDays(lakeDir)).filter((d) => d.day < mergedBefore);
  for (const { workspaceId, day } of due)
    await rm(path.join(lakeDir, compactedDayPath(workspaceId, day)), { recursive: true, force: true });
  return due.length;
};

const columns = eventRecordFields.map((name) => `"${name}"`).join(', ');

/**
 * Step 1 on the local lake (DuckDB): every workspace-day before `before` with hourly files (and
 * not merged yet, or merged but with hourly files left) is written, with the day's daily file if
 * any, one row per eventId sorted by eventId, to `compacted/daily/workspace_id=W/month=M/D.parquet`
 * (a temp file renamed). The caller then writes the watermark object with `mergedBefore`.
 */
export const mergeDailyLocal = async (
  lakeDir: string,
  options: { before: string; mergedBefore?: string },
): Promise<DailyMergeReport> => {
  const due = (await hourlyDays(lakeDir)).filter((d) => d.day < options.before);
  const report: DailyMergeReport = {
    workspaceDays: 0,
    days: [...new Set(due.map((d) => d.day))].sort(),
    mergedBefore:
      options.mergedBefore === undefined || options.before > options.mergedBefore
        ? options.before
        : options.mergedBefore,
  };
  if (due.length === 0) return report;
  const connection = await (await getDuckDbInstance()).connect();
  try {
    for (const { workspaceId, day } of due) {
      const hourlyDir = path.join(lakeDir, compactedDayPath(workspaceId, day));
      const hourly = (await listDir(hourlyDir))
        .filter((f) => f.endsWith('.parquet'))
        .map((f) => path.join(hourlyDir, f));
      const dir = path.join(lakeDir, dailyMonthPath(workspaceId, day.slice(0, 7)));
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, `${day}.parquet`);
      const existing = (await listDir(dir)).filter((f) => f === `${day}.parquet`).map((f) => path.join(dir, f));
      const temp = path.join(dir, `.merging-${randomBytes(6).toString('hex')}.tmp`);
      const merged = `SELECT ${columns} FROM (
  SELECT lake.*, row_number() OVER (PARTITION BY "eventId" ORDER BY "eventId") AS copy_number
  FROM (
    SELECT ${columns} FROM (${dailyRelationSql(existing)})
    UNION ALL
    SELECT ${columns} FROM (${compactedRelationSql(hourly)})
  ) lake
) WHERE copy_number = 1
ORDER BY "eventId"`;
      await connection.run(`COPY (${merged}) TO ${sqlString(temp)} (FORMAT parquet, COMPRESSION zstd)`);
      await rename(temp, target);
      report.workspaceDays += 1;
    }
  } finally {
    connection.closeSync();
  }
  return report;
};
