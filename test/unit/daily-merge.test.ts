import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateQuery, exportPageQuery, type ScopeFilter } from '@shared/analytics/query/analytics-sql';
import type { AnalyticsRange } from '@shared/analytics/query/analytics-schemas';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { mergeDailyLocal } from '@shared/analytics/lake/daily-merge';
import { createDuckDbEngine, lakeFilesFor } from '@shared/analytics/query/duckdb-engine';
import { compactedDayPath, dailyMonthPath, shardOf } from '@shared/analytics/lake/lake-layout';
import { lakeReadBounds } from '@shared/analytics/query/raw-read';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';

/**
 * The daily merge on the local lake, end to end: after a backlog (40 days of raw objects never
 * compacted, a Firehose duplicate, two workspaces sharing nothing), compaction + the daily merge
 * give the same answers (aggregate with every breakdown and the timeseries, and the full export,
 * for 24h/7d/30d/90d) as the raw lake did, at every step of the switch-over: daily files written
 * but not switched to, switched with the hourly files still there, hourly files removed by the
 * next run, and a late event for a merged day counted once after the run that compacts it.
 */
const A = 'ws_merge_a';
const B = ['ws_merge_b', 'ws_merge_c', 'ws_merge_d'].find((ws) => shardOf(ws) !== shardOf(A))!;
const NOW = new Date('2026-11-20T10:30:00.000Z');
const START = Date.parse('2026-10-11T00:00:00.000Z');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const event = (workspaceId: string, i: number, at: number): EventRecord => ({
  ...blankEvent({
    eventId: `${workspaceId}-${i}`,
    timestamp: new Date(at).toISOString(),
    eventType: i % 6 === 0 ? 'launch_view_impression' : 'click',
    workspaceId,
    trafficType: i % 9 === 0 ? 'bot' : 'human',
  }),
  linkId: `lnk_${i % 3}`,
  visitorId: `v${i % 17}`,
  country: ['US', 'DE', 'FR'][i % 3]!,
  deviceType: ['mobile', 'desktop'][i % 2]!,
});

/** 40 days up to now, an event every ~97 minutes per workspace; one object per hour, one delivered twice. */
const backlogLake = async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'daily-merge-'));
  dirs.push(dir);
  const sink = createLocalLakeSink(dir);
  let i = 0;
  for (let at = START; at < NOW.getTime() - 60_000; at += 97 * 60_000) {
    const batch = [event(A, i, at), event(B, i, at + 1000)];
    await sink.send(batch);
    if (i === 100) await sink.send(batch); // a Firehose duplicate
    i += 1;
  }
  return dir;
};

const answers = async (dir: string, now = NOW) => {
  const engine = createDuckDbEngine(dir);
  const bounds = await lakeReadBounds(engine, now);
  const out: Record<string, unknown> = {};
  for (const range of ['24h', '7d', '30d', '90d'] as AnalyticsRange[]) {
    for (const workspaceId of [A, B]) {
      const window = analyticsWindow(range, now);
      const filter: ScopeFilter = { workspaceId, scope: { kind: 'workspace' }, window, traffic: 'all', ...bounds };
      const scope = { workspaceId, firstDay: window.firstDay, lastDay: window.lastDay, ...bounds };
      const aggregate = await engine.query(aggregateQuery({ ...filter, unit: window.unit }), scope);
      const events = await engine.query(exportPageQuery(filter, 1000, null), scope);
      out[`${range}/${workspaceId}`] = {
        aggregate: aggregate.map((r) => JSON.stringify(r)).sort(),
        events: events.map((r) => r.event_id).sort(),
      };
    }
  }
  return out;
};

const hourlyDaysOf = (dir: string, workspaceId: string) =>
  readdirSync(path.join(dir, 'compacted', `workspace_id=${workspaceId}`)).sort();

describe('daily merge of hourly compacted files (local lake)', () => {
  it('after a backlog, compaction + the daily merge answer as the raw lake did, at every step of the switch-over', async () => {
    const dir = await backlogLake();
    const before = await answers(dir);
    expect((before[`90d/${A}`] as { events: string[] }).events.length).toBeGreaterThan(500);

    // Daily files written, the manifest not switched yet: readers still read the hourly files.
    await compactLake(dir, { now: NOW, dailyMerge: false });
    expect(await answers(dir)).toEqual(before);
    await mergeDailyLocal(dir, { before: '2026-11-20' });
    expect(existsSync(path.join(dir, dailyMonthPath(A, '2026-11'), '2026-11-19.parquet'))).toBe(true);
    expect(await answers(dir)).toEqual(before);

    // The run that merges and switches (mergedBefore = today): hourly files of merged days stay for now.
    const first = await compactLake(dir, { now: NOW });
    expect(first.merge?.mergedBefore).toBe('2026-11-20');
    expect(hourlyDaysOf(dir, A).length).toBeGreaterThan(30);
    expect(await answers(dir)).toEqual(before);

    // The next run removes the merged days' hourly files: only today is hourly.
    await compactLake(dir, { now: new Date(NOW.getTime() + 10 * 60_000) });
    expect(hourlyDaysOf(dir, A)).toEqual(['dt=2026-11-20']);
    expect(await answers(dir)).toEqual(before);

    // A 90-day view opens one file per merged day and the hourly file of today (no raw file: all closed hours compacted).
    const window = analyticsWindow('90d', NOW);
    const bounds = await lakeReadBounds(createDuckDbEngine(dir), NOW);
    const files = await lakeFilesFor(dir, {
      workspaceId: A,
      firstDay: window.firstDay,
      lastDay: window.lastDay,
      ...bounds,
    });
    expect(files.daily.length).toBe(40);
    expect(files.compacted).toEqual([path.join(dir, compactedDayPath(A, '2026-11-20'), 'events.parquet')]);

    // A late event for a merged day (and a replay of a merged event): not read raw (below the
    // late-read hours), then compacted into its daily file by the next run, counted once.
    const late = event(A, 99_999, Date.parse('2026-11-02T05:00:00.000Z'));
    await createLocalLakeSink(dir).send([late, event(A, 5, START + 5 * 97 * 60_000)]);
    const later = new Date(NOW.getTime() + 20 * 60_000);
    await compactLake(dir, { now: later });
    expect(existsSync(path.join(dir, compactedDayPath(A, '2026-11-02')))).toBe(false);
    const after = await answers(dir, later);
    const events90 = (after[`90d/${A}`] as { events: string[] }).events;
    expect(events90).toEqual([...(before[`90d/${A}`] as { events: string[] }).events, late.eventId].sort());
    expect(after[`90d/${B}`]).toEqual(before[`90d/${B}`]);
  });
});
