import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setAnalyticsEngine } from '@shared/analytics/analytics-backend';
import type { AnalyticsEngine, QueryScope } from '@shared/analytics/analytics-engine';
import { createDuckDbEngine, lakeFilesFor } from '@shared/analytics/duckdb-engine';
import { exportAnalyticsEvents } from '@shared/analytics/export-analytics-events';
import { getAppAnalyticsOrThrow } from '@shared/analytics/get-app-analytics';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/get-link-analytics';
import { blankEvent, type EventRecord, type EventType } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { median, round } from './stats';
import type { World } from './world';

const DAY = 86_400_000;
const SPREAD_DAYS = 30;
const BATCH = 5000;
const OTHER_WORKSPACES = ['ws_bench_other_1', 'ws_bench_other_2', 'ws_bench_other_3'];

/** Deterministic pseudo-random numbers, so every run writes the same lake. */
const rng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

/**
 * `count` events over the last 30 days, in time order (so each batch touches few partitions):
 * 55% the bench workspace (its link and its deep-link app), 45% three other workspaces.
 */
const eventsOf = (world: World, count: number, seed: number, now: number) => {
  const random = rng(seed);
  const start = now - SPREAD_DAYS * DAY;
  const step = (SPREAD_DAYS * DAY) / count;
  const types: EventType[] = ['click', 'click', 'click', 'click', 'launch_view_impression', 'first_open', 'customer_event'];
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
  /** Files and bytes the engine read for the query (its partition list), against the whole lake. */
  filesRead: number;
  bytesRead: number;
  /** Every file read belongs to the query's workspace and lies in its day range. */
  prunedToScope: boolean;
}

export interface AnalyticsLevel {
  events: number;
  generateSeconds: number;
  lakeFiles: number;
  lakeBytes: number;
  queries: AnalyticsQueryRow[];
}

/**
 * Generates the levels cumulatively through the real local sink (batched sends), then times the
 * three analytics routes' domain functions on DuckDB (median of `repeats`), recording the file
 * list the DuckDB engine builds for each query (its `lakeFilesFor`, the partition pruning).
 */
export const measureAnalyticsScale = async (world: World, levels: number[], repeats: number): Promise<AnalyticsLevel[]> => {
  const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'bench-analytics-lake-'));
  const duck = createDuckDbEngine(lakeDir);
  let lastRead: { files: string[]; scope: QueryScope } | undefined;
  const instrumented: AnalyticsEngine = {
    name: duck.name,
    cacheTtlSeconds: 0,
    async query(query, scope) {
      const files = await lakeFilesFor(lakeDir, scope);
      lastRead = { files: [...new Set([...(lastRead?.files ?? []), ...files])], scope };
      return duck.query(query, scope);
    },
  };
  setAnalyticsEngine(instrumented);
  const sink = createLocalLakeSink(lakeDir);
  const now = Date.now();
  const routes: Array<[string, () => Promise<unknown>]> = [
    ['link analytics (7d)', () => getLinkAnalyticsOrThrow(world.tenant.workspaceId, world.link.id, { range: '7d', traffic: 'all' })],
    ['deep-link app analytics (7d)', () => getAppAnalyticsOrThrow(world.tenant.workspaceId, world.tenant.deepLinkApp.id, { range: '7d', traffic: 'all' })],
    ['events export page (24h, 100)', () => exportAnalyticsEvents(world.tenant.workspaceId, { limit: 100, range: '24h', eventType: 'all' })],
  ];
  const results: AnalyticsLevel[] = [];
  let written = 0;
  try {
    for (const [index, level] of levels.entries()) {
      const count = level - written;
      const make = eventsOf(world, count, index + 1, now);
      const started = performance.now();
      for (let i = 0; i < count; i += BATCH) {
        const batch: EventRecord[] = [];
        for (let j = i; j < Math.min(count, i + BATCH); j++) batch.push(make(j));
        await sink.send(batch);
      }
      const generateSeconds = (performance.now() - started) / 1000;
      written = level;
      const all = lakeFiles(lakeDir);
      const lakeBytes = bytesOf(all);
      const queries: AnalyticsQueryRow[] = [];
      for (const [route, run] of routes) {
        const times: number[] = [];
        let read: typeof lastRead;
        for (let r = 0; r < repeats; r++) {
          lastRead = undefined;
          const t = performance.now();
          await run();
          times.push(performance.now() - t);
          read = lastRead;
        }
        const files = read?.files ?? [];
        const prefix = path.join(lakeDir, 'events', `workspace_id=${world.tenant.workspaceId}`) + path.sep;
        const inScope = files.every((f) => {
          const day = /dt=(\d{4}-\d{2}-\d{2})/.exec(f)?.[1] ?? '';
          return f.startsWith(prefix) && read !== undefined && day >= read.scope.firstDay && day <= read.scope.lastDay;
        });
        queries.push({ route, ms: round(median(times), 1), filesRead: files.length, bytesRead: bytesOf(files), prunedToScope: inScope });
      }
      results.push({ events: level, generateSeconds: round(generateSeconds, 1), lakeFiles: all.length, lakeBytes, queries });
    }
  } finally {
    setAnalyticsEngine(undefined);
    rmSync(lakeDir, { recursive: true, force: true });
  }
  return results;
};
