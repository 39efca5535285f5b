import type { AnalyticsEngine, AnalyticsRow } from '@shared/analytics/query/analytics-engine';
import { linkClickCountsQuery } from '@shared/analytics/query/analytics-sql';
import { compactedLinkClickCountsQuery, UNLOAD_MAX_WORKSPACES } from '@shared/analytics/lake/athena-compaction';
import { runAthenaStatement, type AthenaStatementOptions } from '@shared/analytics/query/athena-engine';
import { log } from '@shared/util/logger';
import { settleLinkDay, type SettleOutcome } from './link-counters';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface SettleTotals {
  workspaceDays: number;
  links: number;
  /** Links whose counters moved (a click counted twice taken off, or one never counted added). */
  settled: number;
  unchanged: number;
  skipped: number;
  /** Links whose settle failed (logged): settled again at their day's next compaction. */
  failed: number;
}

const emptyTotals = (): SettleTotals => ({
  workspaceDays: 0,
  links: 0,
  settled: 0,
  unchanged: 0,
  skipped: 0,
  failed: 0,
});

/** The closed hours of a day before `closedBefore` (whole hours), or undefined when none is. */
const settledSpan = (day: string, closedBefore: string) => {
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  const end = Math.min(dayStart + DAY, Math.floor(Date.parse(closedBefore) / HOUR) * HOUR);
  if (!(end > dayStart)) return undefined;
  return { start: new Date(dayStart).toISOString(), end: new Date(end).toISOString(), firstDay: day, lastDay: day };
};

/** Settles each link of the rows (`link_id`, `human_clicks`, `bot_clicks`) for the day's hours before `end`. */
const settleRows = async (rows: AnalyticsRow[], day: string, end: string, totals: SettleTotals, now: Date) => {
  for (const row of rows) {
    const linkId = row.link_id;
    if (!linkId) continue;
    totals.links += 1;
    const exact = { humans: Number(row.human_clicks ?? 0), bots: Number(row.bot_clicks ?? 0) };
    let outcome: SettleOutcome;
    try {
      outcome = await settleLinkDay(linkId, day, end, exact, now);
    } catch (error) {
      // One link failing does not stop the others; its day is settled again at its next compaction.
      log('warn', 'click counters of a link not settled', { linkId, day, error: String(error) });
      totals.failed += 1;
      continue;
    }
    if (outcome === 'settled') totals.settled += 1;
    else if (outcome === 'unchanged') totals.unchanged += 1;
    else totals.skipped += 1;
  }
};

/**
 * The correction step of the click counters, run after each compaction (the local schedule and
 * `admin compact-lake`): for every workspace-day the run compacted, the exact click count of each
 * of its links in the day's closed hours (before `closedBefore`, each eventId once: the lake's
 * de-duplicated rows, analytics-sql.ts) replaces what the consumer counted live for those hours
 * (link-counters.ts, `settleLinkDay`). The live counters over-count only clicks delivered twice in
 * different consumer batches, and only until their hour is closed and compacted.
 */
export const settleClickCounters = async (
  engine: AnalyticsEngine,
  workspaceDays: Array<{ workspaceId: string; day: string }>,
  closedBefore: string,
  now = new Date(),
): Promise<SettleTotals> => {
  const totals = emptyTotals();
  for (const { workspaceId, day } of workspaceDays) {
    const window = settledSpan(day, closedBefore);
    if (!window) continue;
    const rows = await engine.query(linkClickCountsQuery({ workspaceId, window }), {
      workspaceId,
      firstDay: day,
      lastDay: day,
    });
    totals.workspaceDays += 1;
    await settleRows(rows, day, window.end, totals, now);
  }
  if (totals.settled > 0) log('info', 'click counters settled from the lake', { ...totals });
  return totals;
};

/**
 * The same step after the deployed compaction (Athena): one statement per compacted day and batch
 * of at most UNLOAD_MAX_WORKSPACES workspaces, reading the compacted data only (events_compacted,
 * or events_daily for a day before the run's daily-merge boundary `mergedBefore`: every event of
 * an hour before the watermark is compacted, once per eventId; a raw object that landed after the
 * run's listing is compacted, and its day settled again, by the next run).
 */
export const settleClickCountersOnAthena = async (
  options: AthenaStatementOptions,
  workspaceDays: Array<{ workspaceId: string; day: string }>,
  closedBefore: string,
  deadline: number,
  now = new Date(),
  mergedBefore?: string,
): Promise<SettleTotals> => {
  const totals = emptyTotals();
  const byDay = new Map<string, string[]>();
  for (const { workspaceId, day } of workspaceDays) byDay.set(day, [...(byDay.get(day) ?? []), workspaceId]);
  for (const [day, workspaces] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
    const span = settledSpan(day, closedBefore);
    if (!span) continue;
    const unique = [...new Set(workspaces)].sort();
    for (let i = 0; i < unique.length; i += UNLOAD_MAX_WORKSPACES) {
      const batch = unique.slice(i, i + UNLOAD_MAX_WORKSPACES);
      const rows = await runAthenaStatement(
        options,
        compactedLinkClickCountsQuery(day, batch, { from: span.start, to: span.end }, mergedBefore),
        deadline,
      );
      totals.workspaceDays += batch.length;
      await settleRows(rows, day, span.end, totals, now);
    }
  }
  if (totals.settled > 0) log('info', 'click counters settled from the lake (Athena)', { ...totals });
  return totals;
};
