import type { LakeStore } from '@shared/admin/lake-store';
import { eventRecordFields } from '@shared/events/event-record';
import { log } from '@shared/util/logger';
import { SAFE_ID } from './analytics-engine';
import { ANALYTICS_TABLE, COMPACTED_TABLE, type SqlQuery } from './analytics-sql';
import { runAthenaStatement, type AthenaStatementOptions } from './athena-engine';
import type { CompactionReport } from './compact-lake';
import { planCompaction, WATERMARK_KEY, watermarkBody, type CompactionDay } from './compaction-plan';
import { COMPACTED_PREFIX, RAW_PREFIX, shardOf } from './lake-layout';

/*
 * The deployed compaction job's engine: the same plan as the local job (compaction-plan.ts),
 * executed by Athena. Per day of the plan:
 *   1. SELECT DISTINCT the workspaces in the day's closed raw partitions (shards x hours);
 *   2. per batch of at most 100 of them (UNLOAD's partition limit), one UNLOAD of their raw rows,
 *      one per eventId, minus the events already compacted (NOT EXISTS on events_compacted),
 *      sorted by eventId, as ZSTD Parquet into compacted/workspace_id=W/dt=D/ (the prefix the
 *      query side reads for closed periods, partitioned_by: new files beside the existing ones);
 *   3. delete the raw objects the plan listed for that day.
 * Then it records the watermark. Because each UNLOAD writes only events not compacted yet, the
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

/** Step 1: the workspaces with events in the day's closed raw partitions. */
export const compactionWorkspacesQuery = (day: Pick<CompactionDay, 'day' | 'shards' | 'hours'>): SqlQuery => ({
  sql: `SELECT DISTINCT workspaceId AS workspace_id
FROM ${ANALYTICS_TABLE}
WHERE shard IN (${placeholders(day.shards.length)})
  AND dt = ?
  AND hour IN (${placeholders(day.hours.length)})
  AND workspaceId IS NOT NULL
  AND eventId IS NOT NULL
ORDER BY workspace_id`,
  params: [...day.shards, day.day, ...day.hours],
});

/**
 * Step 2: one UNLOAD of some workspaces' new events of one day into the compacted layout. The
 * only text that varies is the number of placeholders and the destination (the lake bucket's
 * compacted prefix, not a tenant value); every value is a `?` parameter in a WHERE clause.
 * The injected `workspace_id` of events_compacted gets its values from the IN list.
 */
export const compactionUnloadStatement = (
  lakeBucket: string,
  day: Pick<CompactionDay, 'day' | 'hours'>,
  workspaceIds: string[],
): SqlQuery => {
  if (workspaceIds.length === 0 || workspaceIds.length > UNLOAD_MAX_WORKSPACES)
    throw new Error(`An UNLOAD takes 1-${UNLOAD_MAX_WORKSPACES} workspaces`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(lakeBucket)) throw new Error(`Not a bucket name: ${lakeBucket}`);
  const shards = [...new Set(workspaceIds.map((ws) => shardOf(ws)))].sort();
  const sql = `UNLOAD (
  SELECT ${lakeColumns}, workspace_id, dt
  FROM (
    SELECT ${lakeColumns}, workspaceId AS workspace_id, dt, row_number() OVER (PARTITION BY eventId ORDER BY eventId) AS copy_number
    FROM ${ANALYTICS_TABLE}
    WHERE shard IN (${placeholders(shards.length)})
      AND dt = ?
      AND hour IN (${placeholders(day.hours.length)})
      AND workspaceId IN (${placeholders(workspaceIds.length)})
      AND eventId IS NOT NULL
  ) raw
  WHERE copy_number = 1
    AND NOT EXISTS (
      SELECT 1
      FROM ${COMPACTED_TABLE} done
      WHERE done.workspace_id IN (${placeholders(workspaceIds.length)})
        AND done.dt = ?
        AND done.workspace_id = raw.workspace_id
        AND done.eventId = raw.eventId
    )
  ORDER BY eventId
) TO 's3://${lakeBucket}/${COMPACTED_PREFIX}'
WITH (format = 'PARQUET', compression = 'ZSTD', partitioned_by = ARRAY['workspace_id', 'dt'])`;
  return { sql, params: [...shards, day.day, ...day.hours, ...workspaceIds, ...workspaceIds, day.day] };
};

export interface AthenaCompactionOptions extends AthenaStatementOptions {
  /** The lake (the official S3 client over the lake bucket, or a local folder in tests). */
  lake: LakeStore;
  lakeBucket: string;
  /** Epoch ms by which the run stops (below the function's timeout); what is not done waits for the next run. */
  deadline: number;
  at?: Date;
  graceMs?: number;
}

/** The local job's report, with Athena statements counted instead of events (UNLOAD returns no row count). */
export type AthenaCompactionReport = Omit<CompactionReport, 'events'> & { statements: number };

/**
 * One run of the deployed compaction (see the top of this file). Throws when a statement fails:
 * the day in progress keeps its raw objects, the watermark is not written, the next scheduled
 * run does that work again (only what is still missing is written).
 */
export const compactLakeOnAthena = async (options: AthenaCompactionOptions): Promise<AthenaCompactionReport> => {
  const at = options.at ?? new Date();
  const keys: string[] = [];
  for await (const key of options.lake.list(RAW_PREFIX)) keys.push(key);
  const plan = planCompaction(keys, { now: at.getTime(), graceMs: options.graceMs });
  const report: AthenaCompactionReport = {
    watermark: plan.watermark,
    rawFiles: 0,
    workspaceDays: 0,
    statements: 0,
    skippedWorkspaces: [],
  };
  for (const day of plan.days) {
    const rows = await runAthenaStatement(options, compactionWorkspacesQuery(day), options.deadline);
    report.statements += 1;
    const workspaces = rows.map((row) => row.workspace_id).filter((ws): ws is string => typeof ws === 'string');
    const safe = workspaces.filter((ws) => SAFE_ID.test(ws));
    const unsafe = workspaces.filter((ws) => !SAFE_ID.test(ws));
    for (let i = 0; i < safe.length; i += UNLOAD_MAX_WORKSPACES) {
      const batch = safe.slice(i, i + UNLOAD_MAX_WORKSPACES);
      await runAthenaStatement(options, compactionUnloadStatement(options.lakeBucket, day, batch), options.deadline, {
        results: false,
      });
      report.statements += 1;
      report.workspaceDays += batch.length;
    }
    // Lines of a workspace id that cannot name a folder stay raw (logged) rather than vanish.
    if (unsafe.length === 0) {
      await options.lake.delete(day.objects.map((o) => o.key));
      report.rawFiles += day.objects.length;
    } else {
      report.skippedWorkspaces.push(...unsafe);
    }
  }
  await options.lake.putText(WATERMARK_KEY, watermarkBody(plan, at, 'athena'));
  if (report.skippedWorkspaces.length > 0)
    log('warn', 'lake compaction skipped unsafe workspace ids', { workspaceIds: report.skippedWorkspaces });
  return report;
};
