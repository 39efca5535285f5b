/** admin replay-stream-failures: replays the stream consumers' kept failures through their consumers. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { Command } from 'commander';
import { createLocalLakeStore, createS3LakeStore } from '@shared/admin/lake-store';
import { replayKeptFailures } from '@shared/events/kept-failures';
import { createErasedCheck } from '@shared/tenancy/erased-workspaces';
import { localStreamFailuresDir } from '@shared/events/local-event-stream';
import { localDir } from '@shared/local/paths';
import { invalidInput } from '@shared/admin/admin-error';
import type { AdminTargetOf } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

/** The local stack's kept failures: next to its lake (LOCAL_LAKE_DIR, else the running stack's). */
const localFailuresDir = (): string => {
  let lakeDir = process.env.LOCAL_LAKE_DIR;
  const stackFile = path.join(localDir, 'stack.json');
  if (!lakeDir && existsSync(stackFile))
    lakeDir = (JSON.parse(readFileSync(stackFile, 'utf8')) as { lakeDir?: string }).lakeDir;
  lakeDir ??= path.join(localDir, 'lake');
  return localStreamFailuresDir(lakeDir);
};

export const registerStreamFailureCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('replay-stream-failures')
    .description(
      'replay the batches the stream consumers gave up on (kept whole in their failures bucket) through the same consumer: click counters, outbound publisher or edge click-log conversion (its click events to the event stream: EVENTS_STREAM_NAME deployed); replayed objects are removed, failing ones stay; safe to run again',
    )
    .option(
      '--bucket <name>',
      'deployed: a failures bucket (stack outputs CounterFailuresBucketName, PublishFailuresBucketName, EdgeClickLogFailuresBucketName)',
    )
    .option(
      '--dir <folder>',
      'local: the kept failures folder (default: the local stack lake folder + "-stream-failures")',
    )
    .option('--prefix <prefix>', 'only objects under this key prefix')
    .option('--max <n>', 'stop after this many objects')
    .option('--json', 'print one line of JSON')
    .action(async (options: JsonOption & { bucket?: string; dir?: string; prefix?: string; max?: string }) => {
      const max = options.max === undefined ? undefined : Number(options.max);
      if (max !== undefined && !(Number.isInteger(max) && max > 0))
        throw invalidInput('--max must be a positive whole number');
      if (options.bucket && options.dir) throw invalidInput('Give --bucket (deployed) or --dir (local), not both');
      // The consumers' table (counters, outbound items, tombstones): the running local stack's, else TABLE_NAME.
      adminTarget();
      const store = options.bucket
        ? createS3LakeStore(new S3Client({ region: process.env.AWS_REGION ?? 'us-east-1' }), options.bucket)
        : createLocalLakeStore(options.dir ?? localFailuresDir());
      const bar = progressBar(options, max ?? 0, 'kept batches');
      const totals = await replayKeptFailures({
        store,
        prefix: options.prefix,
        max,
        // A batch kept after its workspace's erasure is not replayed (erased-workspaces.ts).
        erased: createErasedCheck(),
        onProgress: () => {
          bar.increment(1);
        },
      });
      bar.stop();
      printResult(
        options,
        { location: store.location, ...totals },
        (t) =>
          `${String(t.replayed)} of ${String(t.objects)} kept batches replayed (${String(t.records)} records) from ${t.location}` +
          (t.edgeClicks ? `; ${String(t.edgeClicks)} edge-answered clicks sent to the event stream` : '') +
          (t.recordsDropped ? `; ${String(t.recordsDropped)} records of erased workspaces dropped` : '') +
          (t.tooOld ? `; ${String(t.tooOld)} older than 30 days left (not replayable exactly)` : '') +
          (t.failed
            ? `; ${String(t.failed)} failed and stay (first: ${t.errors[0]?.key ?? ''}: ${t.errors[0]?.error ?? ''})`
            : ''),
      );
      if (totals.failed) process.exitCode = 1;
    });
};
