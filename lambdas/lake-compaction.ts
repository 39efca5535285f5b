/**
 * The deployed lake compaction (EventBridge Scheduler, hourly): the local job's plan run on
 * Athena (shared/analytics/lake/athena-compaction.ts). A failed run throws (Lambda errors alarm); the
 * next run does the work again, and the watermark moves only when a run completes.
 */
import middy from '@middy/core';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { createAthenaClient } from '@shared/analytics/athena-client';
import { compactLakeOnAthena, type AthenaCompactionReport } from '@shared/analytics/lake/athena-compaction';
import { parseLakeCompactionConfig } from '@shared/analytics/lake/compaction-config';
import { acquireCompactionLock } from '@shared/analytics/lake/compaction-lock';
import { settleClickCountersOnAthena, type SettleTotals } from '@shared/clicks/settle-click-counters';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricNames, metrics } from '@shared/util/metrics';

const config = parseLakeCompactionConfig(process.env);
const athena = createAthenaClient({ region: config.region });
const s3 = new S3Client({ region: config.region });
const lake = createS3LakeStore(s3, config.lakeBucket);

/** The backlog alarm's datum (lib/lake-compaction.ts): its own EMF line, also when a unit failed. */
const recordCompactionBacklog = (seconds: number): void => {
  metrics.singleMetric().addMetric(metricNames.compactionBacklog, MetricUnit.Seconds, seconds);
};

/** Stop starting statements this long before the function's timeout (a running one is stopped at the deadline). */
const DEADLINE_MARGIN_MS = 60_000;
/** Start no unit (a SELECT and an UNLOAD over at most half Athena's cutoff) with less than this left. */
const UNIT_RESERVE_MS = 120_000;

type RunResult = (AthenaCompactionReport & { settled: SettleTotals }) | { skipped: 'another run holds the lock' };

const compact = async (_event: unknown, context: Context): Promise<RunResult> => {
  // One run at a time (the schedule, an operator's invoke, a duplicate async delivery).
  const lock = await acquireCompactionLock(s3, config.lakeBucket, { owner: context.awsRequestId });
  if (!lock) {
    log('warn', 'lake compaction skipped: another run holds the lock', {});
    return { skipped: 'another run holds the lock' };
  }
  try {
    return await run(context);
  } finally {
    await lock.release();
  }
};

const run = async (context: Context): Promise<AthenaCompactionReport & { settled: SettleTotals }> => {
  let progress: AthenaCompactionReport | undefined;
  const deadline = Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
  const statementOptions = { athena, workgroup: config.workgroup, database: config.database };
  const report = await compactLakeOnAthena({
    ...statementOptions,
    lake,
    lakeBucket: config.lakeBucket,
    deadline,
    // UNLOADs take seconds to minutes: poll gently.
    pollIntervalMs: 500,
    maxPollIntervalMs: 5_000,
    unitReserveMs: UNIT_RESERVE_MS,
    onProgress: (r) => (progress = { ...r }),
  }).finally(() => {
    // The backlog alarm's datum, also when a unit failed (as far as the run got).
    if (progress) recordCompactionBacklog(progress.backlogSeconds);
  });
  log('info', 'lake compacted', { ...report });
  // The click counters of the workspace-days the run wrote: their closed hours set to the distinct
  // count from the compacted data (a click the consumer counted twice is taken off). A settle that
  // does not finish is done again when the day is next compacted (or by a later run's late events).
  const settled = await settleClickCountersOnAthena(
    { ...statementOptions, pollIntervalMs: 500, maxPollIntervalMs: 5_000 },
    report.compacted,
    report.watermark,
    deadline,
    new Date(),
    report.mergedBefore,
  );
  return { ...report, settled };
};

export const handler = middy<unknown, RunResult>(compact).use(observabilityMiddlewares<unknown, RunResult, Context>());
