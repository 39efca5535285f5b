import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { eventRecordFields } from '@shared/events/event-record';
import { log } from '@shared/util/logger';
import { required } from '@shared/util/required';
import { SAFE_ID } from '../query/analytics-engine';
import {
  compactedRelationSql,
  dailyRelationSql,
  getDuckDbInstance,
  rawRelationSql,
  readLocalMergedBefore,
  sqlString,
} from '../query/duckdb-engine';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { WATERMARK_KEY, watermarkBody } from './compaction-plan';
import { planCompactionUnits, watermarkAfter } from './compaction-units';
import { compactedDayPath, dailyMonthPath, RAW_PREFIX } from './lake-layout';
import { mergeDailyLocal, removeMergedHourly, type DailyMergeReport } from './daily-merge';

/** Shared with the deployed job (compaction-plan.ts): what is closed, and where the watermark is. */
export { COMPACTION_GRACE_MS } from './compaction-plan';

/** The file of one workspace's compacted day (rewritten whole when late events arrive). */
export const COMPACTED_FILE = 'events.parquet';
export const WATERMARK_FILE = WATERMARK_KEY;

export interface CompactionReport {
  /** Raw hours before this instant were closed and compacted (ISO). */
  watermark: string;
  rawFiles: number;
  /** Workspace-days written (new, or rewritten with late arrivals). */
  workspaceDays: number;
  /** Events in the compacted files written by this run (after de-duplication). */
  events: number;
  /** Workspace ids that cannot name a folder: their raw lines stay where they are (logged). */
  skippedWorkspaces: string[];
  /** The daily merge after the units (daily-merge.ts): days merged, and the boundary queries now read. */
  merge?: DailyMergeReport;
  /** The workspace-days written (the click counters of their links are settled from them: settle-click-counters.ts). */
  compacted: Array<{ workspaceId: string; day: string }>;
}

export interface CompactionOptions {
  now?: Date;
  graceMs?: number;
  /** Called after each unit is compacted (admin progress bar). */
  onDay?: (done: number, total: number) => void;
  /** The bound of a unit's raw bytes (default: the deployed job's, half Athena's per-query cutoff). */
  maxScanBytes?: number;
  /** Merge closed days' hourly files into daily files after the units (default true). */
  dailyMerge?: boolean;
}

const listDir = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).sort();

/**
 * Raw files of closed hours in byte-bounded units, oldest first: the work of one run (the plan
 * both engines share; compaction-units.ts). A unit is one day's hours (or part of one hour), so
 * DuckDB never parses more than a unit's raw bytes at once.
 */
const closedRawFiles = async (lakeDir: string, now: number, graceMs?: number, maxScanBytes?: number) => {
  const listing: Array<{ key: string; size: number }> = [];
  for await (const object of createLocalLakeStore(lakeDir).listSized(RAW_PREFIX)) listing.push(object);
  const plan = planCompactionUnits(listing, { now, graceMs, maxScanBytes });
  const units = plan.units.map((unit) => ({
    day: unit.day,
    files: unit.objects.map((o) => path.join(lakeDir, ...o.key.split('/'))),
  }));
  return { plan, units };
};

const columns = eventRecordFields.map((name) => `"${name}"`).join(', ');

/**
 * Compacts the local lake (DuckDB, which writes Parquet natively): every raw JSON file of a
 * closed hour is merged, per workspace and day, with that day's compacted Parquet (if any),
 * de-duplicated by eventId, sorted by eventId, written to a temp file and renamed over
 * `compacted/workspace_id=W/dt=D/events.parquet`; then the raw files it read are removed.
 * A crash between the two steps leaves events in both places: the queries de-duplicate by
 * eventId and the next run merges them again. Late arrivals in a compacted hour are raw files
 * like any other and are merged by the next run. The watermark records the last closed instant.
 */
export const compactLake = async (lakeDir: string, options: CompactionOptions = {}): Promise<CompactionReport> => {
  const now = (options.now ?? new Date()).getTime();
  // Days before it were merged by an earlier run: their hourly files go (readers switched a run
  // ago), and late arrivals of those days are compacted straight into their daily files.
  const mergedBefore = await readLocalMergedBefore(lakeDir);
  if (mergedBefore !== undefined) await removeMergedHourly(lakeDir, mergedBefore);
  const { plan, units } = await closedRawFiles(lakeDir, now, options.graceMs, options.maxScanBytes);
  const report: CompactionReport = {
    watermark: new Date(watermarkAfter(plan, units.length)).toISOString(),
    rawFiles: 0,
    workspaceDays: 0,
    events: 0,
    skippedWorkspaces: [],
    compacted: [],
  };
  const connection = await (await getDuckDbInstance()).connect();
  try {
    let done = 0;
    for (const { day, files } of units) {
      // Parsed once per day (a table, not a view): each workspace's COPY reads it, not the JSON again.
      await connection.run(`CREATE OR REPLACE TEMP TABLE compaction_raw AS ${rawRelationSql(files)}`);
      const workspaces = (
        await connection.runAndReadAll(
          'SELECT DISTINCT "workspaceId" FROM compaction_raw WHERE "workspaceId" IS NOT NULL',
        )
      )
        .getRows()
        .map((r) => String(r[0]));
      let consumedAll = true;
      for (const workspaceId of workspaces) {
        if (!SAFE_ID.test(workspaceId)) {
          report.skippedWorkspaces.push(workspaceId);
          consumedAll = false;
          continue;
        }
        // A merged day's late events join its daily file; any other day's its hourly (day) file.
        const intoDaily = mergedBefore !== undefined && day < mergedBefore;
        const dir = path.join(
          lakeDir,
          intoDaily ? dailyMonthPath(workspaceId, day.slice(0, 7)) : compactedDayPath(workspaceId, day),
        );
        const fileName = intoDaily ? `${day}.parquet` : COMPACTED_FILE;
        await mkdir(dir, { recursive: true });
        const existing = (await listDir(dir)).filter((f) => f === fileName).map((f) => path.join(dir, f));
        const temp = path.join(dir, `.compacting-${randomBytes(6).toString('hex')}.tmp`);
        const merged = `SELECT ${columns} FROM (
  SELECT lake.*, row_number() OVER (PARTITION BY "eventId" ORDER BY "eventId") AS copy_number
  FROM (
    SELECT ${columns} FROM (${intoDaily ? dailyRelationSql(existing) : compactedRelationSql(existing)})
    UNION ALL
    SELECT ${columns} FROM compaction_raw WHERE "workspaceId" = ${sqlString(workspaceId)} AND "eventId" IS NOT NULL
  ) lake
) WHERE copy_number = 1
ORDER BY "eventId"`;
        await connection.run(`COPY (${merged}) TO ${sqlString(temp)} (FORMAT parquet, COMPRESSION zstd)`);
        const [countRow] = (
          await connection.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(temp)})`)
        ).getRows();
        const count = required(countRow, 'the row of a count(*)')[0];
        await rename(temp, path.join(dir, fileName));
        report.workspaceDays += 1;
        report.compacted.push({ workspaceId, day });
        report.events += Number(count);
      }
      // Lines without a usable workspace stay raw (and are logged) rather than vanish.
      if (consumedAll) {
        await Promise.all(files.map((file) => rm(file, { force: true })));
        report.rawFiles += files.length;
      }
      done += 1;
      options.onDay?.(done, units.length);
    }
    await connection.run('DROP TABLE IF EXISTS compaction_raw');
  } finally {
    connection.closeSync();
  }
  // Every closed hour before the watermark's day is compacted: merge those days (daily files
  // first), then write the watermark object, the manifest that switches readers over.
  const merge =
    options.dailyMerge === false
      ? undefined
      : await mergeDailyLocal(lakeDir, { before: report.watermark.slice(0, 10), mergedBefore });
  report.merge = merge;
  // Replaced whole (a temp file renamed): a reader sees the old manifest or the new one.
  await createLocalLakeStore(lakeDir).putText(
    WATERMARK_FILE,
    watermarkBody({ watermark: report.watermark }, new Date(now), 'duckdb', merge?.mergedBefore ?? mergedBefore),
  );
  if (report.skippedWorkspaces.length > 0)
    log('warn', 'lake compaction skipped unsafe workspace ids', { workspaceIds: report.skippedWorkspaces });
  return report;
};
