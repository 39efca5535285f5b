/** admin compact-lake: move the local lake's closed hours from raw JSON into per-workspace Parquet. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { compactLake, COMPACTION_GRACE_MS } from '@shared/analytics/compact-lake';
import { localDir } from '@shared/local/paths';
import { AdminUsageError } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

/** The lake to compact: --lake-dir, else LOCAL_LAKE_DIR, else the running local stack's. */
const lakeDirOf = (option?: string): string => {
  if (option) return option;
  if (process.env.LOCAL_LAKE_DIR) return process.env.LOCAL_LAKE_DIR;
  const stackFile = path.join(localDir, 'stack.json');
  if (existsSync(stackFile)) {
    const lakeDir = (JSON.parse(readFileSync(stackFile, 'utf8')) as { lakeDir?: string }).lakeDir;
    if (lakeDir) return lakeDir;
  }
  const fallback = path.join(localDir, 'lake');
  if (existsSync(fallback)) return fallback;
  throw new AdminUsageError('No local lake: pass --lake-dir, set LOCAL_LAKE_DIR or start the stack (`npm start`). Deployed, compaction runs on its own schedule (docs/analytics.md).');
};

export const registerLakeCommands = (program: Command): void => {
  program
    .command('compact-lake')
    .description(`compact the local event lake: raw JSON of hours closed for ${COMPACTION_GRACE_MS / 60_000} min -> Parquet per workspace and day (late arrivals merged)`)
    .option('--lake-dir <dir>', 'the lake folder (default: LOCAL_LAKE_DIR or the running local stack)')
    .option('--now <iso>', 'compact as if it were this instant (ISO 8601)')
    .option('--json', 'print one line of JSON')
    .action(async (options: JsonOption & { lakeDir?: string; now?: string }) => {
      const lakeDir = lakeDirOf(options.lakeDir);
      const now = options.now === undefined ? new Date() : new Date(options.now);
      if (Number.isNaN(now.getTime())) throw new AdminUsageError('--now must be an ISO 8601 instant');
      let bar: ReturnType<typeof progressBar> | undefined;
      const report = await compactLake(lakeDir, {
        now,
        onDay: (done, total) => {
          bar ??= progressBar(options, total, 'compacting days');
          bar.increment();
          if (done === total) bar.stop();
        },
      });
      printResult(options, { lakeDir, ...report }, (r) =>
        `Compacted ${r.rawFiles} raw files into ${r.workspaceDays} workspace-days (${r.events} events); closed through ${r.watermark}` +
        (r.skippedWorkspaces.length ? `; left raw (unsafe workspace ids): ${r.skippedWorkspaces.join(', ')}` : ''),
      );
    });
};
