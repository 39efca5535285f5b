import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { aggregateQuery, exportPageQuery, type ScopeFilter } from '@shared/analytics/query/analytics-sql';
import type { AnalyticsRange } from '@shared/analytics/query/analytics-schemas';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { dailyMergeStatement, planDailyMerge } from '@shared/analytics/lake/athena-daily-merge';
import { compactLakeOnAthena } from '@shared/analytics/lake/athena-compaction';
import { createAthenaEngine } from '@shared/analytics/query/athena-engine';
import { parseMergedBefore, parseWatermark, WATERMARK_KEY } from '@shared/analytics/lake/compaction-plan';
import { COMPACTED_PREFIX, DAILY_PREFIX } from '@shared/analytics/lake/lake-layout';
import { lakeReadBounds } from '@shared/analytics/query/raw-read';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { athenaDialectProblems } from '@test/support/athena-dialect';
import { duckDbAthena } from '@test/support/duckdb-athena';

/**
 * The deployed daily merge, executed: the exact statements the Athena path sends, run on DuckDB
 * over a local lake laid out like the bucket (test/support/duckdb-athena.ts), and the analytics
 * SQL answered the same way (the Athena engine over that stand-in, the watermark object read
 * from the lake). After a backlog of three days: same answers before compaction, after it, while
 * a merge that wrote its files then failed is not switched to, after the switch with the hourly
 * objects still there, after the next run removed them, and with a late event of a merged day.
 */
const BUCKET = 'linkservice-lake';
const A = 'ws_alpha';
const B = 'ws_beta';
const NOW = Date.parse('2026-11-20T10:20:00.000Z');
const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'athena-daily-merge-'));
afterAll(() => {
  rmSync(lakeDir, { recursive: true, force: true });
});
const lake = createLocalLakeStore(lakeDir);

const event = (workspaceId: string, i: number, at: number): EventRecord => ({
  ...blankEvent({
    eventId: `${workspaceId}-${i}`,
    timestamp: new Date(at).toISOString(),
    eventType: i % 4 === 0 ? 'launch_view_impression' : 'click',
    workspaceId,
    trafficType: i % 5 === 0 ? 'bot' : 'human',
  }),
  linkId: 'lnk_1',
  visitorId: `v${i % 7}`,
});

const compact = (at: number, athena = duckDbAthena(lakeDir, BUCKET)) =>
  compactLakeOnAthena({
    ...athena,
    workgroup: 'wg',
    database: 'db',
    lake,
    lakeBucket: BUCKET,
    at: new Date(at),
    deadline: Date.now() + 300_000,
    sleep: async () => {},
  });

const answers = async (at = NOW) => {
  const engine = createAthenaEngine({
    ...duckDbAthena(lakeDir, BUCKET),
    workgroup: 'wg',
    database: 'db',
    sleep: async () => {},
    readWatermark: async () => parseWatermark(await lake.getText(WATERMARK_KEY).catch(() => undefined)),
    readMergedBefore: async () => parseMergedBefore(await lake.getText(WATERMARK_KEY).catch(() => undefined)),
  });
  const now = new Date(at);
  const bounds = await lakeReadBounds(engine, now);
  const out: Record<string, string[]> = {};
  for (const range of ['24h', '7d'] as AnalyticsRange[]) {
    for (const workspaceId of [A, B]) {
      const window = analyticsWindow(range, now);
      const filter: ScopeFilter = { workspaceId, scope: { kind: 'workspace' }, window, traffic: 'all', ...bounds };
      const scope = { workspaceId, firstDay: window.firstDay, lastDay: window.lastDay, ...bounds };
      out[`${range}/${workspaceId}/aggregate`] = (
        await engine.query(aggregateQuery({ ...filter, unit: window.unit }), scope)
      )
        .map((r) => JSON.stringify(r))
        .sort();
      out[`${range}/${workspaceId}/events`] = (await engine.query(exportPageQuery(filter, 1000, null), scope))
        .map((r) => r.event_id!)
        .sort();
    }
  }
  return out;
};

const hourlyDays = (workspaceId: string) =>
  existsSync(path.join(lakeDir, COMPACTED_PREFIX, `workspace_id=${workspaceId}`))
    ? readdirSync(path.join(lakeDir, COMPACTED_PREFIX, `workspace_id=${workspaceId}`)).sort()
    : [];

describe('daily merge on Athena (statements executed on DuckDB)', () => {
  it('statements follow the dialect rules; a workspace-day over the bound is split into object ranges', () => {
    const statement = dailyMergeStatement(BUCKET, { day: '2026-11-18', workspaceIds: [A, B] });
    expect(athenaDialectProblems(statement.sql)).toEqual([]);
    expect(statement.sql.split('?').length - 1).toBe(statement.params.length);
    const ranged = dailyMergeStatement(BUCKET, {
      day: '2026-11-18',
      workspaceIds: [A],
      paths: { first: 's3://b/x', last: 's3://b/y' },
    });
    expect(athenaDialectProblems(ranged.sql)).toEqual([]);
    expect(ranged.sql.split('?').length - 1).toBe(ranged.params.length);
    const hourly = Array.from({ length: 24 }, (_, h) => ({
      key: `compacted/workspace_id=${A}/dt=2026-11-18/f${String(h).padStart(2, '0')}`,
      workspaceId: A,
      day: '2026-11-18',
      size: 1000,
    }));
    const plan = planDailyMerge(BUCKET, [...hourly, { ...hourly[0]!, workspaceId: B, key: 'k' }], '2026-11-20', 6000);
    expect(plan.every((s) => s.estimatedScanBytes <= 6000)).toBe(true);
    expect(plan.filter((s) => s.paths).length).toBe(6); // 24 objects of 1,000 B at 1.5x: 4 a statement
    expect(plan.at(-1)).toMatchObject({ workspaceIds: [B] });
  });

  it('after a backlog, compaction + the merge answer as the raw lake did; a failed merge is not switched to', async () => {
    let i = 0;
    for (let at = Date.parse('2026-11-18T00:10:00.000Z'); at < NOW - 60_000; at += 53 * 60_000) {
      await createLocalLakeSink(lakeDir).send([event(A, i, at), event(B, i, at + 1000)]);
      i += 1;
    }
    const before = await answers();
    expect(before[`7d/${A}/events`]!.length).toBeGreaterThan(50);

    // A merge statement writes its files then fails: nothing switches, the answers stay.
    const failing = duckDbAthena(lakeDir, BUCKET, { failAfterWrite: (sql) => sql.includes(`/${DAILY_PREFIX}'`) });
    await expect(compact(NOW, failing)).rejects.toThrow();
    expect(parseMergedBefore(await lake.getText(WATERMARK_KEY))).toBeUndefined();
    expect(existsSync(path.join(lakeDir, DAILY_PREFIX))).toBe(true);
    expect(await answers()).toEqual(before);

    // The next run merges again (only rows the daily files lack) and switches: hourly objects stay for now.
    const merged = await compact(NOW + 60_000);
    expect(merged).toMatchObject({ mergedBefore: '2026-11-20', mergedWorkspaceDays: 4, hourlyObjectsRemoved: 0 });
    expect(hourlyDays(A)).toEqual(['dt=2026-11-18', 'dt=2026-11-19', 'dt=2026-11-20']);
    expect(await answers()).toEqual(before);

    // The run after removes them.
    const next = await compact(NOW + 3_600_000);
    expect(next.hourlyObjectsRemoved).toBeGreaterThan(0);
    expect(hourlyDays(A)).toEqual(['dt=2026-11-20']);
    expect(await answers()).toEqual(before);

    // A late event of a merged day goes to its daily files, counted once.
    const late = event(A, 9999, Date.parse('2026-11-19T06:00:00.000Z'));
    await createLocalLakeSink(lakeDir).send([
      late,
      event(A, 3, Date.parse('2026-11-18T00:10:00.000Z') + 3 * 53 * 60_000),
    ]);
    await compact(NOW + 2 * 3_600_000);
    expect(hourlyDays(A)).toEqual(['dt=2026-11-20']);
    const after = await answers(NOW + 2 * 3_600_000);
    expect(after[`7d/${A}/events`]).toEqual([...before[`7d/${A}/events`]!, late.eventId].sort());
  });

  it('a run that cannot read the watermark object (not a missing one) stops before any work', async () => {
    const broken = { ...lake, getText: () => Promise.reject(new Error('SlowDown')) };
    const athena = duckDbAthena(lakeDir, BUCKET);
    await expect(
      compactLakeOnAthena({
        ...athena,
        workgroup: 'wg',
        database: 'db',
        lake: broken,
        lakeBucket: BUCKET,
        at: new Date(NOW),
        deadline: Date.now() + 60_000,
        sleep: async () => {},
      }),
    ).rejects.toThrow('SlowDown');
    expect(athena.statements).toEqual([]);
  });
});
