/**
 * admin compact-lake: move the local lake's closed hours from raw JSON into per-workspace Parquet.
 * admin replay-lake-errors: send the events of downloaded errors/ objects through the event sink again.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { COMPACTION_GRACE_MS } from '@shared/analytics/lake/compact-lake';
import { compactLakeAndSettle } from '@shared/analytics/lake/compaction-schedule';
import { eventsFromErrorObject } from '@shared/analytics/lake/lake-error-records';
import { getEventSink } from '@shared/events/event-sink';
import type { EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { replayPaced } from '@shared/events/paced-replay';
import { localDir } from '@shared/local/paths';
import { createErasedCheck, dropErased } from '@shared/tenancy/erased-workspaces';
import { AdminError, invalidInput, notFound } from '@shared/admin/admin-error';
import type { AdminTargetOf } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

/** The lake to compact: --lake-dir, else LOCAL_LAKE_DIR, else the running local stack's. */
const lakeDirOf = (option?: string): string => {
  if (option) {
    if (!existsSync(option) || !statSync(option).isDirectory()) throw notFound(`No lake folder ${option}`);
    return option;
  }
  if (process.env.LOCAL_LAKE_DIR) return process.env.LOCAL_LAKE_DIR;
  const stackFile = path.join(localDir, 'stack.json');
  if (existsSync(stackFile)) {
    const lakeDir = (JSON.parse(readFileSync(stackFile, 'utf8')) as { lakeDir?: string }).lakeDir;
    if (lakeDir) return lakeDir;
  }
  const fallback = path.join(localDir, 'lake');
  if (existsSync(fallback)) return fallback;
  throw new AdminError(
    'not_configured',
    'No local lake: pass --lake-dir, set LOCAL_LAKE_DIR or start the stack (`npm start`); deployed, compaction runs on its own schedule (docs/analytics.md)',
  );
};

export const registerLakeCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('compact-lake')
    .description(
      `compact the local event lake: raw JSON of hours closed for ${COMPACTION_GRACE_MS / 60_000} min -> Parquet per workspace and day (late arrivals merged)`,
    )
    .option('--lake-dir <dir>', 'the lake folder (default: LOCAL_LAKE_DIR or the running local stack)')
    .option('--now <iso>', 'compact as if it were this instant (ISO 8601)')
    .option('--json', 'print one line of JSON')
    .action(async (options: JsonOption & { lakeDir?: string; now?: string }) => {
      const lakeDir = lakeDirOf(options.lakeDir);
      const now = options.now === undefined ? new Date() : new Date(options.now);
      if (Number.isNaN(now.getTime()))
        throw invalidInput(`--now must be an ISO 8601 instant such as 2026-03-15T10:30:00Z (got ${options.now ?? ''})`);
      let bar: ReturnType<typeof progressBar> | undefined;
      const report = await compactLakeAndSettle(lakeDir, {
        now,
        onDay: (_done, total) => {
          bar ??= progressBar(options, total, 'compacting days');
          bar.increment();
        },
      }).finally(() => {
        bar?.stop();
      });
      printResult(
        options,
        { lakeDir, ...report },
        (r) =>
          `Compacted ${r.rawFiles} raw files into ${r.workspaceDays} workspace-days (${r.events} events); closed through ${r.watermark}; click counters of ${r.settled.settled} links settled` +
          (r.skippedWorkspaces.length ? `; left raw (unsafe workspace ids): ${r.skippedWorkspaces.join(', ')}` : '') +
          (r.merge
            ? `; merged ${r.merge.workspaceDays} workspace-days into daily files (days before ${r.merge.mergedBefore ?? '-'} read from them)`
            : '') +
          '.',
      );
    });
  program
    .command('replay-lake-errors')
    .description(
      'send the events in objects Firehose wrote under errors/ (downloaded with `aws s3 cp --recursive`) through the event sink again',
    )
    .argument('<path>', 'an errors/ object or a folder of them')
    .option('--lake-dir <dir>', 'local: the lake folder (default: LOCAL_LAKE_DIR or the running local stack)')
    .option('--json', 'print one line of JSON')
    .action(async (target: string, options: JsonOption & { lakeDir?: string }) => {
      if (!existsSync(target)) throw notFound(`No such file or folder: ${target}`);
      const files = statSync(target).isDirectory()
        ? (readdirSync(target, { recursive: true }) as string[])
            .map((f) => path.join(target, f))
            .filter((f) => statSync(f).isFile())
        : [target];
      // Deployed: the stack's event stream (EVENTS_STREAM_NAME, with TABLE_NAME as for every admin command), marked lake-only so the
      // click counters (which counted these events when they first passed) skip them; else the local lake's files.
      // The table holds the tombstones of erased workspaces (the running local stack's, else TABLE_NAME).
      adminTarget();
      const sink = process.env.EVENTS_STREAM_NAME ? getEventSink() : createLocalLakeSink(lakeDirOf(options.lakeDir));
      // Read first, then send paced: old hours each open a Firehose partition (paced-replay.ts).
      const all: EventRecord[] = [];
      let unreadable = 0;
      for (const file of files) {
        const read = eventsFromErrorObject(readFileSync(file));
        all.push(...read.events);
        unreadable += read.unreadable;
      }
      // Events of erased workspaces are not brought back (erased-workspaces.ts).
      const live = await dropErased(all, (e) => e.workspaceId, createErasedCheck());
      const bar = progressBar(options, live.kept.length, 'events replayed');
      let shown = 0;
      const paced = await replayPaced(live.kept, (batch) => sink.send(batch, { lakeOnly: true }), {
        // The local lake has no partition limit: one window.
        partitionLimit: process.env.EVENTS_STREAM_NAME ? undefined : Number.MAX_SAFE_INTEGER,
        onProgress: (p) => {
          bar.increment(p.sent - shown);
          shown = p.sent;
        },
      });
      bar.stop();
      const events = paced.sent;
      printResult(
        options,
        { files: files.length, events, unreadable, erasedDropped: live.dropped },
        (r) =>
          `Replayed ${r.events} events from ${r.files} files (${r.unreadable} unreadable lines${r.erasedDropped ? `, ${r.erasedDropped} of erased workspaces dropped` : ''}) in ${paced.windows} windows of at most the stream's free active partitions`,
      );
    });
};
