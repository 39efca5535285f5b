/**
 * The deployed lake compaction (EventBridge Scheduler, hourly): the local job's plan run on
 * Athena (shared/analytics/athena-compaction.ts). A failed run throws (Lambda errors alarm); the
 * next run does the work again, and the watermark moves only when a run completes.
 */
import middy from '@middy/core';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { createAthenaClient } from '@shared/analytics/athena-client';
import { compactLakeOnAthena, type AthenaCompactionReport } from '@shared/analytics/athena-compaction';
import { parseLakeCompactionConfig } from '@shared/analytics/compaction-config';
import { acquireCompactionLock } from '@shared/analytics/compaction-lock';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';

const config = parseLakeCompactionConfig(process.env);
const athena = createAthenaClient({ region: config.region });
const s3 = new S3Client({ region: config.region });
const lake = createS3LakeStore(s3, config.lakeBucket);

/** Stop starting statements this long before the function's timeout (a running one is stopped at the deadline). */
const DEADLINE_MARGIN_MS = 60_000;

type RunResult = AthenaCompactionReport | { skipped: 'another run holds the lock' };

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

const run = async (context: Context): Promise<AthenaCompactionReport> => {
  const report = await compactLakeOnAthena({
    athena,
    workgroup: config.workgroup,
    database: config.database,
    lake,
    lakeBucket: config.lakeBucket,
    deadline: Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
    // UNLOADs take seconds to minutes: poll gently.
    pollIntervalMs: 500,
    maxPollIntervalMs: 5_000,
  });
  log('info', 'lake compacted', { ...report });
  return report;
};

export const handler = middy<unknown, RunResult>(compact).use(observabilityMiddlewares<unknown, RunResult, Context>());
