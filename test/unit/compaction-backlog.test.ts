import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { aggregateQuery, exportPageQuery, type ScopeFilter } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { compactLakeOnAthena } from '@shared/analytics/lake/athena-compaction';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { WATERMARK_KEY } from '@shared/analytics/lake/compaction-plan';
import { createDuckDbEngine } from '@shared/analytics/query/duckdb-engine';
import { RAW_PREFIX, shardOf } from '@shared/analytics/lake/lake-layout';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { duckDbAthena } from '@test/support/duckdb-athena';

/**
 * A backlog worked off in bounded runs, executed: a scaled-down lake (a "viral" workspace and two
 * quiet ones, 30 hours of Firehose-like objects) is compacted after every run had been missed,
 * with a unit bound small enough that hours split by shard and the viral shard-hours into object
 * ranges (`"$path" BETWEEN`), a few units per run. The analytics answers (aggregate with every
 * breakdown and the timeseries, and the full event export) are the same before the backlog is
 * worked off, after each bounded run, and at the end; the watermark only moves forward.
 */
const BUCKET = 'linkservice-lake';
const VIRAL = 'ws_viral';
const QUIET = ['ws_quiet_1', 'ws_quiet_2'].filter((ws) => shardOf(ws) !== shardOf(VIRAL));
const START = Date.parse('2026-11-19T00:00:00.000Z');
const HOURS = 8;
const NOW = new Date(START + HOURS * 3_600_000 + 15 * 60_000); // every hour closed but the last one
/** A unit's bound: about two of the viral workspace's objects (~600 B each, gzip) and their shard-hour's key columns. */
const UNIT_BYTES = 3_400;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const event = (workspaceId: string, i: number, at: number): EventRecord => ({
  ...blankEvent({
    eventId: `${workspaceId}-${i}`,
    timestamp: new Date(at).toISOString(),
    eventType: i % 5 === 0 ? 'launch_view_impression' : 'click',
    workspaceId,
    trafficType: i % 7 === 0 ? 'bot' : 'human',
  }),
  linkId: `lnk_${workspaceId}`,
  visitorId: `v${i % 40}`,
  country: ['US', 'DE', 'FR'][i % 3]!,
  deviceType: ['mobile', 'desktop'][i % 2]!,
  referrerHost: i % 4 === 0 ? 't.co' : null,
});

/** The lake after a backlog: each hour, the viral workspace in 5 objects (one a duplicate delivery), the quiet ones in one each. */
const backlogLake = async (): Promise<string> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'compaction-backlog-'));
  dirs.push(dir);
  let n = 0;
  for (let h = 0; h <= HOURS; h++) {
    const hour = START + h * 3_600_000;
    for (let o = 0; o < 4; o++) {
      const batch = Array.from({ length: 25 }, (_, k) => event(VIRAL, n + k, hour + (o * 25 + k) * 20_000));
      await createLocalLakeSink(dir).send(batch);
      if (o === 3) await createLocalLakeSink(dir).send(batch.slice(0, 5)); // Firehose delivered these twice
      n += 25;
    }
    for (const ws of QUIET) await createLocalLakeSink(dir).send([event(ws, n++, hour + 60_000)]);
  }
  return dir;
};

const answers = async (dir: string, workspaceId: string) => {
  const window = analyticsWindow('7d', NOW);
  const filter: ScopeFilter = { workspaceId, scope: { kind: 'workspace' }, window, traffic: 'all' };
  const scope = { workspaceId, firstDay: window.firstDay, lastDay: window.lastDay };
  const engine = createDuckDbEngine(dir);
  const aggregate = await engine.query(aggregateQuery({ ...filter, unit: window.unit }), scope);
  const events: Array<Record<string, string | null>> = [];
  for (let page = await engine.query(exportPageQuery(filter, 1000, null), scope); page.length > 0;) {
    events.push(...page);
    const last = page.at(-1)!;
    page = await engine.query(
      exportPageQuery(filter, 1000, { timestamp: last.occurred_at!, eventId: last.event_id! }),
      scope,
    );
  }
  const sorted = (rows: Array<Record<string, string | null>>) => rows.map((r) => JSON.stringify(r)).sort();
  return { aggregate: sorted(aggregate), events: sorted(events) };
};

const rawCount = async (dir: string) => {
  let count = 0;
  for await (const key of createLocalLakeStore(dir).list(RAW_PREFIX)) if (key.includes('/hour=')) count += 1;
  return count;
};

describe('a compaction backlog worked off in bounded runs gives the same answers', () => {
  it('Athena statements (executed on DuckDB): units split by shard and object range, 4 units a run, oldest first', async () => {
    const dir = await backlogLake();
    const before = await Promise.all([VIRAL, ...QUIET].map((ws) => answers(dir, ws)));
    expect(before[0]!.events.length).toBeGreaterThanOrEqual(HOURS * 100); // every closed hour, and the open hour up to now
    const athena = duckDbAthena(dir, BUCKET);
    const watermarks: string[] = [];
    let runs = 0;
    let partialSeen = false;
    for (;;) {
      runs += 1;
      const report = await compactLakeOnAthena({
        ...athena,
        workgroup: 'wg',
        database: 'db',
        lake: createLocalLakeStore(dir),
        lakeBucket: BUCKET,
        at: NOW,
        deadline: Date.now() + 600_000,
        sleep: async () => {},
        // About 2 of the viral workspace's objects per unit: hours split by shard and into ranges.
        maxScanBytes: UNIT_BYTES,
        maxUnits: 4,
      });
      partialSeen ||= athena.statements.some((s) => s.sql.includes('"$path" BETWEEN ? AND ?'));
      watermarks.push(report.watermark);
      expect(await Promise.all([VIRAL, ...QUIET].map((ws) => answers(dir, ws)))).toEqual(before);
      if (report.unitsLeft === 0) break;
      expect(report.units).toBe(4);
      expect(runs).toBeLessThan(200);
    }
    expect(runs).toBeGreaterThan(3);
    expect(partialSeen).toBe(true);
    expect(watermarks).toEqual([...watermarks].sort());
    expect(watermarks.at(-1)).toBe(new Date(START + HOURS * 3_600_000).toISOString());
    expect(JSON.parse(readFileSync(path.join(dir, WATERMARK_KEY), 'utf8')).closedBefore).toBe(watermarks.at(-1));
    // Only the open hour stays raw.
    expect(await rawCount(dir)).toBe(5 + QUIET.length);
  }, 240_000);

  it('the local job (DuckDB) in units of the same plan', async () => {
    const dir = await backlogLake();
    const before = await Promise.all([VIRAL, ...QUIET].map((ws) => answers(dir, ws)));
    const progress: number[] = [];
    const report = await compactLake(dir, { now: NOW, maxScanBytes: UNIT_BYTES, onDay: (done) => progress.push(done) });
    expect(progress.length).toBeGreaterThan(2 * HOURS);
    expect(report.watermark).toBe(new Date(START + HOURS * 3_600_000).toISOString());
    expect(await Promise.all([VIRAL, ...QUIET].map((ws) => answers(dir, ws)))).toEqual(before);
    expect(await rawCount(dir)).toBe(5 + QUIET.length);
  }, 240_000);
});
