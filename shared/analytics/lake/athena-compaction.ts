import type { LakeStore } from '@shared/admin/lake-store';
import { eventRecordFields } from '@shared/events/event-record';
import { log } from '@shared/util/logger';
import { SAFE_ID } from '../query/analytics-engine';
import { ANALYTICS_TABLE, COMPACTED_TABLE, DAILY_TABLE, type SqlQuery } from '../query/analytics-sql';
import { runAthenaStatement, type AthenaStatementOptions } from '../query/athena-engine';
import type { CompactionReport } from './compact-lake';
import { parseMergedBefore, WATERMARK_KEY, watermarkBody, type CompactionDay } from './compaction-plan';
import { planCompactionUnits, unitTimeBounds, watermarkAfter, type CompactionUnit } from './compaction-units';
import { COMPACTED_PREFIX, DAILY_PREFIX, RAW_PREFIX, shardOf } from './lake-layout';
import { mergeDailyOnAthena, removeMergedHourlyObjects } from './athena-daily-merge';

/*
 * The deployed compaction job's engine: the same plan as the local job (compaction-plan.ts, cut
 * into byte-bounded units by compaction-units.ts), executed by Athena. Per unit, oldest first:
 *   1. SELECT DISTINCT the workspaces in the unit's closed raw partitions (shards x hours; for a
 *      unit that is a range of one hour's objects, only those objects: `"$path" BETWEEN ? AND ?`);
 *   2. per batch of at most 100 of them (UNLOAD's partition limit), one UNLOAD of their raw rows,
 *      one per eventId, minus the events already compacted (NOT EXISTS on events_compacted),
 *      sorted by eventId, as ZSTD Parquet into compacted/workspace_id=W/dt=D/ (the prefix the
 *      query side reads for closed periods, partitioned_by: new files beside the existing ones);
 *      the NOT EXISTS reads only compacted rows whose timestamp lies in the unit's hours;
 *   3. delete the raw objects the plan listed for that unit, and record the watermark (the start
 *      of the oldest hour with work left).
 * A run stops starting units when its deadline is near; the next run continues oldest first.
 * Because each UNLOAD writes only events not compacted yet, the
 * compacted rows stay unique by eventId whatever happens: a statement that fails (or a run that
 * dies) leaves the raw objects and the watermark as they were, and the next run writes only what
 * is still missing; raw objects that land after the listing stay for the next run, which finds
 * their events compacted and only deletes them. Nothing vanishes, nothing counts twice.
 */

/** UNLOAD writes at most 100 partitions per statement: one day x at most 100 workspaces. */
export const UNLOAD_MAX_WORKSPACES = 100;

/** The event columns (the Glue tables' columns; `timestamp` quoted as in analytics-sql.ts). */
const lakeColumns = eventRecordFields.map((name) => (name === 'timestamp' ? '"timestamp"' : name)).join(', ');

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/**
 * What one statement reads: a day's closed partitions (shards x hours) and, for a unit that is a
 * range of one hour's objects, the first and last object of the range (`"$path"`, the object's
 * `s3://bucket/key`; Athena's Hive connector lists only the files whose path the predicate admits).
 */
export type CompactionScope = Pick<CompactionDay, 'day' | 'shards' | 'hours'> & {
  paths?: { first: string; last: string };
};

const pathFilter = (scope: CompactionScope, indent: string) =>
  scope.paths ? `\n${indent}AND "$path" BETWEEN ? AND ?` : '';
const pathParams = (scope: CompactionScope) => (scope.paths ? [scope.paths.first, scope.paths.last] : []);

/** The statements' scope of a unit: its partitions, and its object range when it is part of an hour. */
export const scopeOfUnit = (lakeBucket: string, unit: CompactionUnit): CompactionScope => ({
  day: unit.day,
  shards: unit.shards,
  hours: unit.hours,
  ...(unit.partial
    ? {
        paths: {
          first: `s3://${lakeBucket}/${unit.objects[0]?.key ?? ''}`,
          last: `s3://${lakeBucket}/${unit.objects.at(-1)?.key ?? ''}`,
        },
      }
    : {}),
});

/** Step 1: the workspaces with events in the scope's closed raw partitions (objects). */
export const compactionWorkspacesQuery = (scope: CompactionScope): SqlQuery => ({
  sql: `SELECT DISTINCT workspaceId AS workspace_id
FROM ${ANALYTICS_TABLE}
WHERE shard IN (${placeholders(scope.shards.length)})
  AND dt = ?
  AND hour IN (${placeholders(scope.hours.length)})${pathFilter(scope, '  ')}
  AND workspaceId IS NOT NULL
  AND eventId IS NOT NULL
ORDER BY workspace_id`,
  params: [...scope.shards, scope.day, ...scope.hours, ...pathParams(scope)],
});

/**
 * Step 2: one UNLOAD of some workspaces' new events of one day into the compacted layout. The
 * only text that varies is the number of placeholders and the destination (the lake bucket's
 * compacted prefix, not a tenant value); every value is a `?` parameter in a WHERE clause.
 * The injected `workspace_id` of events_compacted gets its values from the IN list.
 */
export const compactionUnloadStatement = (
  lakeBucket: string,
  day: Omit<CompactionScope, 'shards'>,
  workspaceIds: string[],
  /** `daily`: the day is merged already (daily-merge.ts): its late events go to its daily files. */
  target: 'hourly' | 'daily' = 'hourly',
): SqlQuery => {
  if (workspaceIds.length === 0 || workspaceIds.length > UNLOAD_MAX_WORKSPACES)
    throw new Error(`An UNLOAD takes 1-${UNLOAD_MAX_WORKSPACES} workspaces`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(lakeBucket)) throw new Error(`Not a bucket name: ${lakeBucket}`);
  const shards = [...new Set(workspaceIds.map((ws) => shardOf(ws)))].sort();
  const { from, to } = unitTimeBounds(day);
  const daily = target === 'daily';
  // Hourly: partitions (workspace_id, dt), de-duplicated against events_compacted's day; daily:
  // (workspace_id, month), against events_daily's month (the day's rows by their timestamps).
  const [partition, doneTable, donePartition, destination] = daily
    ? (['month', DAILY_TABLE, 'month', DAILY_PREFIX] as const)
    : (['dt', COMPACTED_TABLE, 'dt', COMPACTED_PREFIX] as const);
  const sql = `UNLOAD (
  SELECT ${lakeColumns}, workspace_id, ${daily ? 'substr(dt, 1, 7) AS month' : 'dt'}
  FROM (
    SELECT ${lakeColumns}, workspaceId AS workspace_id, dt, row_number() OVER (PARTITION BY eventId ORDER BY eventId) AS copy_number
    FROM ${ANALYTICS_TABLE}
    WHERE shard IN (${placeholders(shards.length)})
      AND dt = ?
      AND hour IN (${placeholders(day.hours.length)})${pathFilter({ ...day, shards }, '      ')}
      AND workspaceId IN (${placeholders(workspaceIds.length)})
      AND eventId IS NOT NULL
  ) raw
  WHERE copy_number = 1
    AND NOT EXISTS (
      SELECT 1
      FROM ${doneTable} done
      WHERE done.workspace_id IN (${placeholders(workspaceIds.length)})
        AND done.${donePartition} = ?
        AND done."timestamp" >= ?
        AND done."timestamp" < ?
        AND done.workspace_id = raw.workspace_id
        AND done.eventId = raw.eventId
    )
  ORDER BY eventId
) TO 's3://${lakeBucket}/${destination}'
WITH (format = 'PARQUET', compression = 'ZSTD', partitioned_by = ARRAY['workspace_id', '${partition}'])`;
  return {
    sql,
    params: [
      ...shards,
      day.day,
      ...day.hours,
      ...pathParams({ ...day, shards }),
      ...workspaceIds,
      ...workspaceIds,
      daily ? day.day.slice(0, 7) : day.day,
      from,
      to,
    ],
  };
};

export interface AthenaCompactionOptions extends AthenaStatementOptions {
  /** The lake (the official S3 client over the lake bucket, or a local folder in tests). */
  lake: LakeStore;
  lakeBucket: string;
  /** Epoch ms by which the run stops (below the function's timeout); what is not done waits for the next run. */
  deadline: number;
  /** No unit is started with less than this left before the deadline (default 0). */
  unitReserveMs?: number;
  at?: Date;
  graceMs?: number;
  /** The estimated-scan bound of a unit (default half the workgroup's cutoff). */
  maxScanBytes?: number;
  /** At most this many units in one run (default: as many as the deadline allows). */
  maxUnits?: number;
  /** Called with the report once planned and after every unit (the function publishes the backlog even when a unit fails). */
  onProgress?: (report: AthenaCompactionReport) => void;
  /** Merge closed days' hourly files into daily files once every unit is done (default true; athena-daily-merge.ts). */
  dailyMerge?: boolean;
}

/** The local job's report, with Athena statements counted instead of events (UNLOAD returns no row count). */
export type AthenaCompactionReport = Omit<CompactionReport, 'events'> & {
  statements: number;
  /** Units done, units left for the next run, and the largest unit's estimated scan (bytes). */
  units: number;
  unitsLeft: number;
  largestUnitScanBytes: number;
  /** Seconds between the run and the start of the oldest hour still uncompacted (the backlog alarm's metric). */
  backlogSeconds: number;
  /** The daily-merge boundary the run leaves (days before it are read from the daily files), hourly objects removed, workspace-days merged. */
  mergedBefore?: string;
  hourlyObjectsRemoved: number;
  mergedWorkspaceDays: number;
};

/**
 * One run of the deployed compaction (see the top of this file). Throws when a statement fails:
 * the unit in progress keeps its raw objects, the watermark stays where the units done so far
 * put it, the next scheduled run does the rest (only what is still missing is written).
 */
export const compactLakeOnAthena = async (options: AthenaCompactionOptions): Promise<AthenaCompactionReport> => {
  const at = options.at ?? new Date();
  // The daily-merge boundary as the last run left it: that run switched readers to the daily
  // files of earlier days, so their hourly objects go now; late events of those days are
  // compacted into their daily files.
  // A read that fails (not "no such object") fails the run: going on without the boundary would
  // compact late events of merged days into hourly files nobody reads, and record no boundary.
  let mergedBefore = parseMergedBefore(
    await options.lake.getText(WATERMARK_KEY).catch((error: unknown) => {
      const name = (error as { name?: unknown; code?: unknown } | null)?.name;
      const code = (error as { code?: unknown } | null)?.code;
      if (name === 'NoSuchKey' || code === 'ENOENT') return undefined;
      throw error;
    }),
  );
  const hourlyObjectsRemoved =
    mergedBefore === undefined ? 0 : await removeMergedHourlyObjects(options.lake, mergedBefore);
  const listing: Array<{ key: string; size: number }> = [];
  for await (const object of options.lake.listSized(RAW_PREFIX)) listing.push(object);
  const plan = planCompactionUnits(listing, {
    now: at.getTime(),
    graceMs: options.graceMs,
    maxScanBytes: options.maxScanBytes,
  });
  const report: AthenaCompactionReport = {
    watermark: new Date(watermarkAfter(plan, 0)).toISOString(),
    rawFiles: 0,
    workspaceDays: 0,
    statements: 0,
    skippedWorkspaces: [],
    compacted: [],
    units: 0,
    unitsLeft: plan.units.length,
    largestUnitScanBytes: Math.max(0, ...plan.units.map((u) => u.estimatedScanBytes)),
    backlogSeconds: Math.round((at.getTime() - watermarkAfter(plan, 0)) / 1000),
    mergedBefore,
    hourlyObjectsRemoved,
    mergedWorkspaceDays: 0,
  };
  options.onProgress?.(report);
  const reserve = options.unitReserveMs ?? 0;
  const now = options.now ?? Date.now;
  const writeWatermark = async (done: number) => {
    const watermark = watermarkAfter(plan, done);
    await options.lake.putText(
      WATERMARK_KEY,
      watermarkBody({ watermark: new Date(watermark).toISOString() }, at, 'athena', mergedBefore),
    );
    report.watermark = new Date(watermark).toISOString();
    report.backlogSeconds = Math.round((at.getTime() - watermark) / 1000);
  };
  try {
    for (const [index, unit] of plan.units.entries()) {
      if (now() > options.deadline - reserve || index >= (options.maxUnits ?? Infinity)) break;
      const scope = scopeOfUnit(options.lakeBucket, unit);
      const rows = await runAthenaStatement(options, compactionWorkspacesQuery(scope), options.deadline);
      report.statements += 1;
      const workspaces = rows.map((row) => row.workspace_id).filter((ws): ws is string => typeof ws === 'string');
      const safe = workspaces.filter((ws) => SAFE_ID.test(ws));
      const unsafe = workspaces.filter((ws) => !SAFE_ID.test(ws));
      for (let i = 0; i < safe.length; i += UNLOAD_MAX_WORKSPACES) {
        const batch = safe.slice(i, i + UNLOAD_MAX_WORKSPACES);
        await runAthenaStatement(
          options,
          compactionUnloadStatement(
            options.lakeBucket,
            scope,
            batch,
            mergedBefore !== undefined && unit.day < mergedBefore ? 'daily' : 'hourly',
          ),
          options.deadline,
          {
            results: false,
          },
        );
        report.statements += 1;
        report.workspaceDays += batch.length;
        report.compacted.push(...batch.map((workspaceId) => ({ workspaceId, day: scope.day })));
      }
      // Lines of a workspace id that cannot name a folder stay raw (logged) rather than vanish.
      if (unsafe.length === 0) {
        await options.lake.delete(unit.objects.map((o) => o.key));
        report.rawFiles += unit.objects.length;
      } else {
        report.skippedWorkspaces.push(...unsafe);
      }
      report.units = index + 1;
      report.unitsLeft = plan.units.length - report.units;
      // Progress survives a later failure or the deadline: the next run starts where this one stopped.
      await writeWatermark(report.units);
      options.onProgress?.(report);
    }
    if (plan.units.length === 0) await writeWatermark(0);
    // Every closed hour before the watermark's day compacted: merge those days, then switch.
    const before = report.watermark.slice(0, 10);
    if (
      options.dailyMerge !== false &&
      report.unitsLeft === 0 &&
      (mergedBefore === undefined || before > mergedBefore) &&
      now() <= options.deadline - reserve
    ) {
      const merge = await mergeDailyOnAthena(options, before);
      report.statements += merge.statements;
      report.mergedWorkspaceDays = merge.workspaceDays;
      if (merge.complete) {
        mergedBefore = before;
        report.mergedBefore = before;
        await writeWatermark(report.units);
      }
    }
  } finally {
    if (report.skippedWorkspaces.length > 0)
      log('warn', 'lake compaction skipped unsafe workspace ids', { workspaceIds: report.skippedWorkspaces });
  }
  return report;
};

/**
 * After a run: the exact click counts of the links of some workspaces (at most
 * UNLOAD_MAX_WORKSPACES) in a span of one compacted day (its hours before the watermark), from
 * events_compacted, whose rows are unique by eventId. One statement per day and batch of
 * workspaces, for settling the click counters (settle-click-counters.ts).
 */
export const compactedLinkClickCountsQuery = (
  day: string,
  workspaceIds: string[],
  span: { from: string; to: string },
  /** The daily-merge boundary the run left: a day before it is read from its daily file only. */
  mergedBefore?: string,
): SqlQuery => {
  if (workspaceIds.length === 0 || workspaceIds.length > UNLOAD_MAX_WORKSPACES)
    throw new Error(`A click counts query takes 1-${UNLOAD_MAX_WORKSPACES} workspaces`);
  // A merged day's events are in events_daily (partitions workspace_id, month); its hourly objects
  // may still exist until the next run removes them, but readers switched: read the daily file.
  const merged = mergedBefore !== undefined && day < mergedBefore;
  return {
    sql: `SELECT
  workspace_id,
  linkId AS link_id,
  count_if(trafficType = 'human') AS human_clicks,
  count_if(trafficType = 'bot') AS bot_clicks
FROM ${merged ? DAILY_TABLE : COMPACTED_TABLE}
WHERE workspace_id IN (${placeholders(workspaceIds.length)})
  AND ${merged ? 'month' : 'dt'} = ?
  AND "timestamp" >= ?
  AND "timestamp" < ?
  AND eventType = ?
  AND linkId IS NOT NULL
GROUP BY workspace_id, linkId
ORDER BY workspace_id, link_id`,
    params: [...workspaceIds, merged ? day.slice(0, 7) : day, span.from, span.to, 'click'],
  };
};
