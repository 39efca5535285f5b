import type { AnalyticsEngine } from '@shared/analytics/analytics-engine';
import { linkClickCountsQuery } from '@shared/analytics/analytics-sql';
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
  const totals: SettleTotals = {
    workspaceDays: 0,
    links: 0,
    settled: 0,
    unchanged: 0,
    skipped: 0,
    failed: 0,
  };
  for (const { workspaceId, day } of workspaceDays) {
    const dayStart = Date.parse(`${day}T00:00:00.000Z`);
    const end = Math.min(dayStart + DAY, Math.floor(Date.parse(closedBefore) / HOUR) * HOUR);
    if (!(end > dayStart)) continue;
    const window = {
      start: new Date(dayStart).toISOString(),
      end: new Date(end).toISOString(),
      firstDay: day,
      lastDay: day,
    };
    const rows = await engine.query(linkClickCountsQuery({ workspaceId, window }), {
      workspaceId,
      firstDay: day,
      lastDay: day,
    });
    totals.workspaceDays += 1;
    for (const row of rows) {
      const linkId = row.link_id;
      if (!linkId) continue;
      totals.links += 1;
      const exact = { humans: Number(row.human_clicks ?? 0), bots: Number(row.bot_clicks ?? 0) };
      let outcome: SettleOutcome;
      try {
        outcome = await settleLinkDay(linkId, day, window.end, exact, now);
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
  }
  if (totals.settled > 0) log('info', 'click counters settled from the lake', { ...totals });
  return totals;
};
