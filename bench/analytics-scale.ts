import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provideServices, resetServices } from '@shared/runtime/services';
import type { AnalyticsEngine, QueryScope } from '@shared/analytics/query/analytics-engine';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { createDuckDbEngine, lakeFilesFor } from '@shared/analytics/query/duckdb-engine';
import { compactedWorkspacePath, RAW_PREFIX, shardOf } from '@shared/analytics/lake/lake-layout';
import { exportAnalyticsEvents } from '@shared/analytics/query/export-analytics-events';
import { getAppAnalyticsOrThrow } from '@shared/analytics/query/get-app-analytics';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/query/get-link-analytics';
import { blankEvent, type EventRecord, type EventType } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { must } from './must';
import { median, round } from './stats';
import type { World } from './world';

const DAY = 86_400_000;
const SPREAD_DAYS = 90;
const BATCH = 5000;
const OTHER_WORKSPACES = ['ws_bench_other_1', 'ws_bench_other_2', 'ws_bench_other_3'];

/** Deterministic pseudo-random numbers, so every run writes the same lake. */
const rng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const pick = <T>(random: () => number, values: readonly T[]): T =>
  must(values[Math.floor(random() * values.length)], 'value to pick from an empty list');

/**
 * `count` events over the last 90 days, in time order (so each batch touches few partitions):
 * 55% the bench workspace (its link and its deep-link app), 45% three other workspaces.
 */
const eventsOf = (world: World, count: number, seed: number, now: number) => {
  const random = rng(seed);
  const start = now - SPREAD_DAYS * DAY;
  const step = (SPREAD_DAYS * DAY) / count;
  const types: EventType[] = [
    'click',
    'click',
    'click',
    'click',
    'launch_view_impression',
    'first_open',
    'customer_event',
  ];
  return (i: number): EventRecord => {
    const mine = random() < 0.55;
    const eventType = pick(random, types);
    const deep = mine && eventType !== 'click';
    return {
      ...blankEvent({
        eventId: `bench-${seed}-${i}`,
        timestamp: new Date(start + i * step).toISOString(),
        eventType,
        workspaceId: mine ? world.tenant.workspaceId : pick(random, OTHER_WORKSPACES),
        trafficType: random() < 0.1 ? 'bot' : 'human',
      }),
      linkId: deep ? world.deepLink.id : world.link.id,
      deepLinkAppId: deep ? world.tenant.deepLinkApp.id : null,
      domain: deep ? world.deepLink.domain : world.link.domain,
      linkKey: deep ? world.deepLink.key : world.link.key,
      linkType: deep ? 'DEEPLINK' : 'SHORTLINK',
      visitorId: `v${Math.floor(random() * 5000)}`,
      country: pick(random, ['US', 'DE', 'FR', 'GB', 'IN', null]),
      deviceType: pick(random, ['mobile', 'desktop', 'tablet']),
      platform: pick(random, ['ios', 'android', 'desktop']),
      browser: pick(random, ['Chrome', 'Mobile Safari', 'Firefox', 'Samsung Internet']),
      os: pick(random, ['iOS', 'Android', 'Windows', 'Mac OS']),
      referrerHost: pick(random, ['t.co', 'www.google.com', null]),
      resolvedDestinationUrl: 'https://example.com/landing',
      responseKind: eventType === 'click' ? 'redirect' : 'api',
      utmSource: pick(random, ['newsletter', 'twitter', null]),
      sdkEventName: eventType === 'customer_event' ? 'purchase' : null,
      properties: eventType === 'customer_event' ? '{"amount":3}' : null,
    };
  };
};

const lakeFiles = (dir: string): string[] => {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(full);
    }
  };
  walk(dir);
  return out;
};
const bytesOf = (files: string[]) => files.reduce((n, f) => n + statSync(f).size, 0);

export interface AnalyticsQueryRow {
  route: string;
  ms: number;
  /** Files and bytes the engine read for the route (its partition lists), against the whole lake. */
  filesRead: number;
  bytesRead: number;
  /** Bytes each query of the route opened (one dashboard view runs them all). */
  queryBytes: number[];
  /** Every file read is the query's workspace's (its raw shard or its compacted folder) and lies in its day range. */
  prunedToScope: boolean;
}

export interface LakeMeasure {
  lakeFiles: number;
  lakeBytes: number;
  queries: AnalyticsQueryRow[];
}

export interface AnalyticsLevel extends LakeMeasure {
  events: number;
  generateSeconds: number;
  /** The bench workspace's events in the 90-day window. */
  workspaceEvents: number;
  /** The same lake after a compaction run (every closed hour in Parquet, the open hour raw). */
  compacted: LakeMeasure & { compactSeconds: number };
}

/** Athena's price and per-query minimum (bench/prices.ts has the other prices). */
export const ATHENA_USD_PER_TB = 5;
export const ATHENA_MIN_BYTES_PER_QUERY = 10 * 1000 * 1000;

/** USD of one dashboard view deployed: every query's scanned bytes (the objects it opens), each at least 10 MB. */
export const dashboardViewUsd = (queryBytes: number[]): number =>
  queryBytes.reduce((sum, bytes) => sum + (Math.max(bytes, ATHENA_MIN_BYTES_PER_QUERY) / 1e12) * ATHENA_USD_PER_TB, 0);

/** The view's cost for a workspace with `target` events in 90 days, scaled from a measured workspace (bytes grow with events). */
export const dashboardViewUsdFor = (queryBytes: number[], measuredEvents: number, target = 1_000_000): number =>
  dashboardViewUsd(queryBytes.map((bytes) => (bytes * target) / Math.max(1, measuredEvents)));

const LINK_90D = 'link analytics (90d)';

/**
 * Generates each level into a fresh lake through the real local sink (batched sends), times the
 * analytics routes' domain functions on DuckDB over the raw JSON (median of `repeats`), compacts
 * the lake (compact-lake.ts) and times them again over Parquet plus the open hour's JSON,
 * recording the files the DuckDB engine lists for each query (its `lakeFilesFor`, the pruning).
 */
export const measureAnalyticsScale = async (
  world: World,
  levels: number[],
  repeats: number,
  progress: (message: string) => void = () => undefined,
): Promise<AnalyticsLevel[]> => {
  const results: AnalyticsLevel[] = [];
  for (const [index, level] of levels.entries()) {
    const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'bench-analytics-lake-'));
    const duck = createDuckDbEngine(lakeDir);
    let reads: Array<{ files: string[]; scope: QueryScope }> = [];
    const instrumented: AnalyticsEngine = {
      name: duck.name,
      cacheTtlSeconds: 0,
      async query(query, scope) {
        const files = await lakeFilesFor(lakeDir, scope);
        reads.push({ files: [...files.raw, ...files.compacted], scope });
        return duck.query(query, scope);
      },
      watermark: () => duck.watermark(),
    };
    provideServices({ analyticsEngine: instrumented });
    const sink = createLocalLakeSink(lakeDir);
    const now = Date.now();
    const ws = world.tenant.workspaceId;
    const routes: Array<[string, () => Promise<unknown>]> = [
      [LINK_90D, () => getLinkAnalyticsOrThrow(ws, world.link.id, { range: '90d', traffic: 'all' })],
      ['link analytics (7d)', () => getLinkAnalyticsOrThrow(ws, world.link.id, { range: '7d', traffic: 'all' })],
      [
        'deep-link app analytics (7d)',
        () => getAppAnalyticsOrThrow(ws, world.tenant.deepLinkApp.id, { range: '7d', traffic: 'all' }),
      ],
      [
        'events export page (24h, 100)',
        () => exportAnalyticsEvents(ws, { limit: 100, range: '24h', eventType: 'all' }),
      ],
    ];
    const measure = async (): Promise<LakeMeasure> => {
      const all = lakeFiles(lakeDir);
      const queries: AnalyticsQueryRow[] = [];
      for (const [route, run] of routes) {
        const times: number[] = [];
        for (let r = 0; r < repeats; r++) {
          reads = [];
          const t = performance.now();
          await run();
          times.push(performance.now() - t);
        }
        const files = [...new Set(reads.flatMap((read) => read.files))];
        const inScope = reads.every((read) =>
          read.files.every((f) => {
            const day = /dt=(\d{4}-\d{2}-\d{2})/.exec(f)?.[1] ?? '';
            const own =
              f.includes(`${path.sep}${RAW_PREFIX}shard=${shardOf(ws)}${path.sep}`) ||
              f.includes(`${path.sep}${compactedWorkspacePath(ws)}${path.sep}`);
            return own && day >= read.scope.firstDay && day <= read.scope.lastDay;
          }),
        );
        queries.push({
          route,
          ms: round(median(times), 1),
          filesRead: files.length,
          bytesRead: bytesOf(files),
          queryBytes: reads.map((read) => bytesOf(read.files)),
          prunedToScope: inScope,
        });
      }
      return { lakeFiles: all.length, lakeBytes: bytesOf(all), queries };
    };
    try {
      const make = eventsOf(world, level, index + 1, now);
      let workspaceEvents = 0;
      const started = performance.now();
      for (let i = 0; i < level; i += BATCH) {
        const batch: EventRecord[] = [];
        for (let j = i; j < Math.min(level, i + BATCH); j++) batch.push(make(j));
        workspaceEvents += batch.filter((e) => e.workspaceId === ws).length;
        await sink.send(batch);
        if ((i + BATCH) % 1_000_000 === 0)
          progress(`analytics ${level.toLocaleString('en-US')}: ${(i + BATCH).toLocaleString('en-US')} events written`);
      }
      const generateSeconds = (performance.now() - started) / 1000;
      progress(
        `analytics ${level.toLocaleString('en-US')}: generated in ${Math.round(generateSeconds)} s; querying the JSON-only lake`,
      );
      const raw = await measure();
      progress(`analytics ${level.toLocaleString('en-US')}: compacting`);
      const compactStarted = performance.now();
      await compactLake(lakeDir, { now: new Date(now) });
      const compactSeconds = (performance.now() - compactStarted) / 1000;
      progress(
        `analytics ${level.toLocaleString('en-US')}: compacted in ${Math.round(compactSeconds)} s; querying the compacted lake`,
      );
      const compacted = await measure();
      results.push({
        events: level,
        generateSeconds: round(generateSeconds, 1),
        workspaceEvents,
        ...raw,
        compacted: { ...compacted, compactSeconds: round(compactSeconds, 1) },
      });
    } finally {
      resetServices('analyticsEngine');
      rmSync(lakeDir, { recursive: true, force: true });
    }
  }
  return results;
};
