import { settleClickCounters } from '@shared/clicks/settle-click-counters';
import { routeContext } from '@shared/local/route-context';
import { lakeCompactionConsumer } from '@shared/routes/consumer-specs';
import { log } from '@shared/util/logger';
import { compactLake, type CompactionReport } from './compact-lake';
import { createDuckDbEngine } from '../query/duckdb-engine';

/**
 * One compaction of the local lake, then the correction of the click counters of the
 * workspace-days it wrote (settled from the de-duplicated lake: settle-click-counters.ts).
 */
export const compactLakeAndSettle = async (
  lakeDir: string,
  options: Parameters<typeof compactLake>[1] = {},
): Promise<CompactionReport & { settled: Awaited<ReturnType<typeof settleClickCounters>> }> =>
  // The compaction function's work, under its row's grants (the local grant guard: LINK# only).
  routeContext.run(lakeCompactionConsumer, async () => {
    const report = await compactLake(lakeDir, options);
    const settled = await settleClickCounters(
      createDuckDbEngine(lakeDir),
      report.compacted,
      report.watermark,
      options.now,
    );
    return { ...report, settled };
  });

/** How often the local stack compacts its lake (deployed: the hourly schedule in lib/lake-compaction.ts). */
export const LOCAL_COMPACTION_INTERVAL_MS = 10 * 60_000;

/** The first run waits this long: loading DuckDB blocks the event loop briefly, not while the stack starts. */
export const FIRST_COMPACTION_DELAY_MS = 60_000;

/**
 * `npm start`'s compaction schedule: a first run a minute after start, then every `intervalMs`;
 * runs never overlap, a failing run is logged and the next one tries again. Returns a stop
 * function that waits for a run in progress.
 */
export const scheduleLakeCompaction = (
  lakeDir: string,
  intervalMs = LOCAL_COMPACTION_INTERVAL_MS,
): (() => Promise<void>) => {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= compactLakeAndSettle(lakeDir)
      .then((report) => {
        if (report.rawFiles > 0) log('info', 'lake compacted', { ...report });
      })
      .catch((error: unknown) => {
        log('error', 'lake compaction failed', { error: String(error) });
      })
      .finally(() => (running = undefined));
  };
  const first = setTimeout(run, Math.min(FIRST_COMPACTION_DELAY_MS, intervalMs));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
};
