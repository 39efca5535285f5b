import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregateQuery,
  exportPageQuery,
  plannedRawPartitions,
  type ScopeFilter,
} from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { computeAnalyticsData } from '@shared/analytics/query/compute-analytics';
import { createDuckDbEngine, lakeFilesFor } from '@shared/analytics/query/duckdb-engine';
import { cachedWatermarkReader, RAW_LATE_READ_HOURS, rawReadFrom } from '@shared/analytics/query/raw-read';
import type { AnalyticsEngine } from '@shared/analytics/query/analytics-engine';
import type { EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { generateFixtureEvents, type FixtureLink, type Range } from '@test/support/analytics-fixtures';

/*
 * Queries read raw partitions only past the compaction watermark (less a few hours for late
 * arrivals): the answers are the same as reading every raw hour of the range, and the raw
 * partitions a query plans are bounded by the hours since the watermark, not the range.
 */
const HOUR = 3_600_000;
const NOW = new Date('2026-03-15T10:30:00.000Z');
const ranges: Range[] = ['24h', '7d', '30d', '90d'];
const link: FixtureLink = {
  workspaceId: 'ws-raw-read',
  linkId: 'lnk-raw-read',
  linkType: 'SHORTLINK',
  deepLinkAppId: null,
  domain: 'go.example.com',
  key: 'rr',
  utmCampaign: null,
};

let lakeDir: string;
let events: EventRecord[];
let pastWatermark: AnalyticsEngine;
let everyHour: AnalyticsEngine;

const answer = (engine: AnalyticsEngine, range: Range) =>
  computeAnalyticsData(engine, {
    workspaceId: link.workspaceId,
    scope: { kind: 'link', linkId: link.linkId },
    query: { range, traffic: 'all' },
    now: NOW,
  });

const exportAll = async (engine: AnalyticsEngine, range: Range) => {
  const window = analyticsWindow(range, NOW);
  const rawFrom = rawReadFrom(await engine.watermark(), NOW);
  const filter: ScopeFilter = { workspaceId: link.workspaceId, scope: { kind: 'workspace' }, window, rawFrom };
  const rows = await engine.query(exportPageQuery(filter, 1001, null), {
    workspaceId: link.workspaceId,
    firstDay: window.firstDay,
    lastDay: window.lastDay,
    rawFrom,
  });
  return rows.map((row) => row.event_id);
};

const expectSameAnswers = async () => {
  for (const range of ranges) {
    expect(await answer(pastWatermark, range), range).toEqual(await answer(everyHour, range));
    expect(await exportAll(pastWatermark, range), range).toEqual(await exportAll(everyHour, range));
  }
};

const lateEvent = (eventId: string, at: number): EventRecord => ({
  ...events.find((e) => e.eventType === 'click')!,
  eventId,
  timestamp: new Date(at).toISOString(),
});

beforeAll(async () => {
  lakeDir = mkdtempSync(path.join(os.tmpdir(), 'raw-read-'));
  events = generateFixtureEvents({ now: NOW, links: [link], perLink: 300 });
  await createLocalLakeSink(lakeDir).send(events);
  pastWatermark = createDuckDbEngine(lakeDir);
  everyHour = createDuckDbEngine(lakeDir, { rawPastWatermark: false });
});

afterAll(() => {
  rmSync(lakeDir, { recursive: true, force: true });
});

describe('raw read past the compaction watermark', () => {
  it('starts at the watermark hour, or RAW_LATE_READ_HOURS before the current hour if that is earlier; none without a watermark', () => {
    expect(RAW_LATE_READ_HOURS).toBe(3);
    expect(rawReadFrom(undefined, NOW)).toBeUndefined();
    expect(rawReadFrom('not a date', NOW)).toBeUndefined();
    // A run that did everything at 10:15 leaves 10:00; the read starts 3 hours before the current hour.
    expect(rawReadFrom('2026-03-15T10:00:00.000Z', NOW)).toBe('2026-03-15T07:00:00.000Z');
    // A backlog: the watermark's own hour.
    expect(rawReadFrom('2026-03-14T21:00:00.000Z', NOW)).toBe('2026-03-14T21:00:00.000Z');
  });

  it('plans raw partitions for the hours since the watermark, not for the whole range (2,160 for 90 days)', () => {
    const window = analyticsWindow('90d', NOW);
    expect(plannedRawPartitions({ window })).toBe(90 * 24);
    const rawFrom = rawReadFrom('2026-03-15T10:00:00.000Z', NOW);
    // 07:00 through 23:00 of the last day: the hours since the read start, bounded by one day.
    expect(plannedRawPartitions({ window, rawFrom })).toBe(17);
    // The statement carries that bound: the raw part's dt and hour predicates start at the read start.
    const query = aggregateQuery({
      workspaceId: link.workspaceId,
      scope: { kind: 'workspace' },
      window,
      rawFrom,
      unit: 'day',
    });
    expect(query.sql).toContain('(dt > ? OR hour >= ?)');
    expect(query.params).toContain('07');
    // The range's first day bounds only the compacted part; the raw part and its NOT EXISTS start at the read start's day.
    expect(query.params.filter((p) => p === window.firstDay)).toHaveLength(1);
    expect(
      aggregateQuery({
        workspaceId: link.workspaceId,
        scope: { kind: 'workspace' },
        window,
        unit: 'day',
      }).params.filter((p) => p === window.firstDay),
    ).toHaveLength(3);
  });

  it('answers the same as reading every raw hour, over compacted and raw hours with late events', async () => {
    // Before any compaction: no watermark, both read everything.
    expect(await pastWatermark.watermark()).toBeUndefined();
    await expectSameAnswers();

    const report = await compactLake(lakeDir, { now: NOW });
    expect(report.watermark).toBe('2026-03-15T10:00:00.000Z');
    expect(await pastWatermark.watermark()).toBe('2026-03-15T10:00:00.000Z');
    // Raw is left only in the open hour; the local listing reads only hours from the read start.
    const scope = { workspaceId: link.workspaceId, firstDay: '2025-12-16', lastDay: '2026-03-15' };
    const rawFrom = rawReadFrom(await pastWatermark.watermark(), NOW);
    expect((await lakeFilesFor(lakeDir, { ...scope, rawFrom })).raw.length).toBeGreaterThan(0);
    await expectSameAnswers();

    // Late arrivals within the late-read hours: a new event 2 hours ago, and a replay of an event
    // compacted already (its raw copy must not count twice).
    const compactedTwoHoursAgo = events.find(
      (e) => e.timestamp >= '2026-03-15T07' && e.timestamp < '2026-03-15T10' && e.eventType === 'click',
    );
    expect(compactedTwoHoursAgo).toBeDefined();
    await createLocalLakeSink(lakeDir).send([
      lateEvent('late-recent', NOW.getTime() - 2 * HOUR),
      compactedTwoHoursAgo!,
    ]);
    await expectSameAnswers();
  });

  it('an event later than the late-read hours (a replay days after) is counted once the next run compacts it', async () => {
    const before = await answer(everyHour, '30d');
    const replayed = lateEvent('late-replay', NOW.getTime() - 5 * 24 * HOUR);
    await createLocalLakeSink(lakeDir).send([replayed]);
    const scope = { workspaceId: link.workspaceId, firstDay: '2026-02-14', lastDay: '2026-03-15' };
    const rawFrom = rawReadFrom(await pastWatermark.watermark(), NOW);
    const isReplay = (file: string) => file.includes(`dt=${replayed.timestamp.slice(0, 10)}`);
    expect((await lakeFilesFor(lakeDir, scope)).raw.filter(isReplay)).toHaveLength(1);
    expect((await lakeFilesFor(lakeDir, { ...scope, rawFrom })).raw.filter(isReplay)).toHaveLength(0);
    // Between its landing and the next listing it is raw below the watermark: not read yet.
    expect((await answer(pastWatermark, '30d')).summary.totalClicks).toBe(before.summary.totalClicks);
    expect((await answer(everyHour, '30d')).summary.totalClicks).toBe(before.summary.totalClicks + 1);
    // The next run (hourly deployed, every 10 minutes locally) compacts it: both read it, once.
    await compactLake(lakeDir, { now: new Date(NOW.getTime() + 5 * 60_000) });
    expect((await answer(pastWatermark, '30d')).summary.totalClicks).toBe(before.summary.totalClicks + 1);
    await expectSameAnswers();
  });

  it('reads the deployed watermark at most once per ttl, and an unreadable one as none', async () => {
    let reads = 0;
    let clock = 0;
    let body: string | Error = '{"closedBefore":"2026-03-15T10:00:00.000Z"}';
    const read = cachedWatermarkReader(
      () => {
        reads += 1;
        return body instanceof Error ? Promise.reject(body) : Promise.resolve(body);
      },
      { ttlMs: 60_000, now: () => clock },
    );
    expect(await read()).toBe('2026-03-15T10:00:00.000Z');
    clock = 59_999;
    expect(await read()).toBe('2026-03-15T10:00:00.000Z');
    expect(reads).toBe(1);
    clock = 60_000;
    body = new Error('NoSuchKey');
    expect(await read()).toBeUndefined();
    expect(reads).toBe(2);
  });
});
