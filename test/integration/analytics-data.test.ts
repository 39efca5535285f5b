import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { getAppAnalyticsOrThrow } from '@shared/analytics/query/get-app-analytics';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/query/get-link-analytics';
import { exportAnalyticsEvents } from '@shared/analytics/query/export-analytics-events';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { lakeFilesFor, readLocalMergedBefore } from '@shared/analytics/query/duckdb-engine';
import { shardOf } from '@shared/analytics/lake/lake-layout';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import { expectAnalyticsMatches } from '@test/support/analytics-assertions';
import {
  dropNulls,
  expectedTopLinks,
  generateFixtureEvents,
  newestFirst,
  selectEvents,
  type FixtureLink,
  type Range,
  type Traffic,
} from '@test/support/analytics-fixtures';
import { TEST_ORIGIN } from '@test/support/test-origin';

const NOW = new Date('2026-03-15T10:30:00.000Z');
const ranges: Range[] = ['24h', '7d', '30d', '90d'];
const traffics: Traffic[] = ['human', 'all', 'bots'];

let a: BootstrapResult;
let b: BootstrapResult;
let links: FixtureLink[];
let events: EventRecord[];

const fixtureLink = (
  workspaceId: string,
  link: { id: string; linkType: string; deepLinkAppId: string | null; domain: string; key: string },
  utmCampaign: string | null,
): FixtureLink => ({
  workspaceId,
  linkId: link.id,
  linkType: link.linkType as FixtureLink['linkType'],
  deepLinkAppId: link.deepLinkAppId,
  domain: link.domain,
  key: link.key,
  utmCampaign,
});

beforeAll(async () => {
  [a, b] = await Promise.all([
    bootstrapTenant({ baseUrl: 'x', edgeUrl: 'y' }),
    bootstrapTenant({ baseUrl: 'x', edgeUrl: 'y' }),
  ]);
  const a1 = await createShortLink(
    a.workspaceId,
    {
      url: 'https://example.com/a1',
      domain: a.domain,
      tracking: { utmCampaign: 'spring' },
    },
    TEST_ORIGIN,
  );
  const a2 = await createShortLink(a.workspaceId, { url: 'https://example.com/a2', domain: a.domain }, TEST_ORIGIN);
  const d1 = await createDeepLink(
    a.workspaceId,
    {
      deepLinkAppId: a.deepLinkApp.id,
      tracking: { utmCampaign: 'app-launch' },
    },
    TEST_ORIGIN,
  );
  const d2 = await createDeepLink(a.workspaceId, { deepLinkAppId: a.deepLinkApp.id }, TEST_ORIGIN);
  const b1 = await createShortLink(b.workspaceId, { url: 'https://example.com/b1', domain: b.domain }, TEST_ORIGIN);
  links = [
    fixtureLink(a.workspaceId, a1, 'spring'),
    fixtureLink(a.workspaceId, a2, null),
    fixtureLink(a.workspaceId, d1, 'app-launch'),
    fixtureLink(a.workspaceId, d2, null),
    fixtureLink(b.workspaceId, b1, 'spring'),
  ];
  events = generateFixtureEvents({ now: NOW, links, perLink: 120 });
  // Tenant B's events naming tenant A's link must never count for A (workspace partition).
  events.push({
    ...events.find((e) => e.workspaceId === b.workspaceId)!,
    eventId: 'evt-cross-tenant',
    linkId: a1.id,
    timestamp: new Date(NOW.getTime() - 3_600_000).toISOString(),
  });
  const sink = getEventSink();
  for (let i = 0; i < events.length; i += 97) await sink.send(events.slice(i, i + 97));
  // Firehose delivers at least once: a duplicated line counts once.
  await sink.send([events[3]!]);
});

/**
 * Every analytics answer is checked twice against the same fixtures: on the raw JSON lines as
 * Firehose writes them, then after a compaction run has moved every closed hour into Parquet
 * (the current hour, inside the grace period, stays raw: the queries read both).
 */
describe.each([
  ['raw JSON lines', false],
  ['compacted Parquet plus the open hour raw', true],
] as const)('on %s', (_layout, compacted) => {
  beforeAll(async () => {
    if (!compacted) return;
    const report = await compactLake(process.env.LOCAL_LAKE_DIR!, { now: NOW });
    expect(report.workspaceDays).toBeGreaterThan(0);
    expect(report.rawFiles).toBeGreaterThan(0);
    const files = await lakeFilesFor(process.env.LOCAL_LAKE_DIR!, {
      workspaceId: a.workspaceId,
      firstDay: '2025-01-01',
      lastDay: '2026-12-31',
    });
    expect(files.compacted.length).toBeGreaterThan(30);
    // Only the hours still inside the grace period are raw.
    for (const file of files.raw) expect(file).toMatch(/dt=2026-03-15\/hour=(10)\//);
  });

  describe('link analytics over the local lake (DuckDB), every number against the fixtures', () => {
    it.each(ranges.flatMap((range) => traffics.map((traffic) => [range, traffic] as const)))(
      'short link, range %s, traffic %s',
      async (range, traffic) => {
        const link = links[0]!;
        const data = await getLinkAnalyticsOrThrow(a.workspaceId, link.linkId, { range, traffic }, NOW);
        const selected = selectEvents(events, {
          now: NOW,
          range,
          traffic,
          where: (e) => e.workspaceId === a.workspaceId && e.linkId === link.linkId,
        });
        expect(selected.length).toBeGreaterThan(0);
        expectAnalyticsMatches(data, selected, range, NOW);
      },
    );

    it('works for a deep link too, and labels known values', async () => {
      const link = links[2]!;
      const data = await getLinkAnalyticsOrThrow(a.workspaceId, link.linkId, { range: '90d', traffic: 'all' }, NOW);
      const selected = selectEvents(events, {
        now: NOW,
        range: '90d',
        traffic: 'all',
        where: (e) => e.workspaceId === a.workspaceId && e.linkId === link.linkId,
      });
      expectAnalyticsMatches(data, selected, '90d', NOW);
      expect(data.geoBreakdown.find((r) => r.key === 'DE')?.label).toBe('Germany');
      expect(data.referrerBreakdown.find((r) => r.key === 'direct')?.label).toBe('Direct');
      expect(data.deviceBreakdown.find((r) => r.key === 'unknown')?.label).toBe('Unknown');
      expect(data.campaignBreakdown).toEqual([
        { key: 'app-launch', label: 'app-launch', count: data.summary.totalClicks, percentage: 100 },
      ]);
    });

    it("answers 404 for another workspace's link and an unknown id", async () => {
      await expect(
        getLinkAnalyticsOrThrow(b.workspaceId, links[0]!.linkId, { range: '7d', traffic: 'human' }, NOW),
      ).rejects.toMatchObject({ code: 'not_found' });
      await expect(
        getLinkAnalyticsOrThrow(a.workspaceId, 'lnk_nope', { range: '7d', traffic: 'human' }, NOW),
      ).rejects.toMatchObject({ code: 'not_found' });
    });

    it('answers a link without events with zeros and every bucket (not an error)', async () => {
      const fresh = await createShortLink(
        a.workspaceId,
        {
          url: 'https://example.com/fresh',
          domain: a.domain,
        },
        TEST_ORIGIN,
      );
      const data = await getLinkAnalyticsOrThrow(a.workspaceId, fresh.id, { range: '30d', traffic: 'all' }, NOW);
      expectAnalyticsMatches(data, [], '30d', NOW);
      expect(data.timeseries).toHaveLength(30);
      expect(data.summary.lastActivityAt).toBeNull();
    });
  });

  describe('deep-link app analytics', () => {
    it.each(ranges.flatMap((range) => traffics.map((traffic) => [range, traffic] as const)))(
      'range %s, traffic %s, with topLinks',
      async (range, traffic) => {
        const data = await getAppAnalyticsOrThrow(a.workspaceId, a.deepLinkApp.id, { range, traffic }, NOW);
        const selected = selectEvents(events, {
          now: NOW,
          range,
          traffic,
          where: (e) => e.workspaceId === a.workspaceId && e.deepLinkAppId === a.deepLinkApp.id,
        });
        expectAnalyticsMatches(data, selected, range, NOW);
        expect(data.topLinks).toEqual(expectedTopLinks(selected, 10));
        if (traffic !== 'bots') expect(data.topLinks.length).toBe(2);
      },
    );

    it('is 404 for an app of another workspace', async () => {
      await expect(
        getAppAnalyticsOrThrow(b.workspaceId, a.deepLinkApp.id, { range: '7d', traffic: 'human' }, NOW),
      ).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('raw event export', () => {
    const walk = async (workspaceId: string, range: Range, eventType: string, limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await exportAnalyticsEvents(
          workspaceId,
          { range, eventType: eventType as never, limit, cursor },
          NOW,
        );
        expect(page.data.length).toBeLessThanOrEqual(limit);
        expect(page.pagination.limit).toBe(limit);
        expect(page.pagination.hasMore).toBe(page.pagination.nextCursor !== null);
        seen.push(...page.data.map((e) => e.eventId));
        cursor = page.pagination.nextCursor ?? undefined;
        pages += 1;
      } while (cursor && pages < 1000);
      return seen;
    };

    it.each([
      ['30d', 'all', 37],
      ['7d', 'click', 10],
      ['90d', 'customer_event', 25],
      ['24h', 'launch_view_impression', 3],
    ] as const)(
      'walks every page of %s / %s (limit %i): each event exactly once, newest first',
      async (range, eventType, limit) => {
        const ids = await walk(a.workspaceId, range, eventType, limit);
        const expected = selectEvents(events, {
          now: NOW,
          range,
          where: (e) => e.workspaceId === a.workspaceId && (eventType === 'all' || e.eventType === eventType),
        }).sort(newestFirst);
        expect(expected.length).toBeGreaterThan(0);
        expect(ids).toEqual(expected.map((e) => e.eventId));
        expect(new Set(ids).size).toBe(ids.length);
      },
    );

    it('returns RawAnalyticsEvent fields, and refuses a cursor of another query', async () => {
      const page = await exportAnalyticsEvents(a.workspaceId, { range: '7d', eventType: 'all', limit: 5 }, NOW);
      const source = events.find((e) => e.eventId === page.data[0]!.eventId)!;
      expect(page.data[0]).toEqual({
        ...dropNulls({
          eventId: source.eventId,
          timestamp: source.timestamp,
          eventType: source.eventType,
          trafficType: source.trafficType,
          country: source.country,
          deviceType: source.deviceType,
          platform: source.platform,
          referrerHost: source.referrerHost,
          resolvedDestinationUrl: source.resolvedDestinationUrl,
          sdkEventName: source.sdkEventName,
          sessionId: source.sessionId,
          clickId: source.clickId,
          attributionId: source.attributionId,
          installId: source.installId,
          linkId: source.linkId,
          deepLinkAppId: source.deepLinkAppId,
          // How it came in: the edge's answers are `edge`; client calls `api` (or `browser`).
          source:
            source.responseKind === 'api' || source.responseKind === 'browser'
              ? source.responseKind
              : source.responseKind && 'edge',
        }),
        // Always present: null when no redirect rule / variant decided the event.
        ruleId: source.ruleId,
        variantId: source.variantId,
      });
      for (const { ruleId: _rule, variantId: _variant, ...event } of page.data)
        expect(Object.values(event)).not.toContain(null);
      const cursor = page.pagination.nextCursor!;
      await expect(
        exportAnalyticsEvents(a.workspaceId, { range: '7d', eventType: 'click', limit: 5, cursor }, NOW),
      ).rejects.toMatchObject({ code: 'invalid_cursor' });
      await expect(
        exportAnalyticsEvents(b.workspaceId, { range: '7d', eventType: 'all', limit: 5, cursor }, NOW),
      ).rejects.toMatchObject({ code: 'invalid_cursor' });
      await expect(
        exportAnalyticsEvents(a.workspaceId, { range: '7d', eventType: 'all', limit: 5, cursor: `${cursor}x` }, NOW),
      ).rejects.toMatchObject({ code: 'invalid_cursor' });
    });
  });
});

describe('late arrivals: an event replayed into a compacted hour', () => {
  it('counts once the next run has merged it (it lands below the watermark), and once whatever is replayed again', async () => {
    const lake = process.env.LOCAL_LAKE_DIR!;
    const link = links[4]!;
    const count = async () =>
      (await getLinkAnalyticsOrThrow(b.workspaceId, link.linkId, { range: '90d', traffic: 'all' }, NOW)).summary
        .totalClicks;
    await compactLake(lake, { now: NOW });
    const before = await count();
    const lateHour = '2026-03-10T07';
    // The run merged every day before today: the day is read from its daily file.
    const mergedBefore = await readLocalMergedBefore(lake);
    expect(mergedBefore).toBe(NOW.toISOString().slice(0, 10));
    const compactedDay = await lakeFilesFor(lake, {
      workspaceId: b.workspaceId,
      firstDay: '2026-03-10',
      lastDay: '2026-03-10',
      mergedBefore,
    });
    expect(compactedDay).toEqual({
      raw: [],
      compacted: [],
      daily: [
        expect.stringContaining(`compacted/daily/workspace_id=${b.workspaceId}/month=2026-03/2026-03-10.parquet`),
      ],
    });
    const template = events.find((e) => e.workspaceId === b.workspaceId && e.eventType === 'click')!;
    const replayed: EventRecord = {
      ...template,
      eventId: 'evt-late-replay',
      timestamp: `${lateHour}:15:00.000Z`,
      trafficType: 'human',
    };
    // Days after its hour was compacted, the replay lands raw in that hour (and once more, at-least-once).
    // Queries read raw only past the watermark (less the late-read hours, raw-read.ts): not counted
    // until the next run lists and compacts it.
    await getEventSink().send([replayed]);
    await getEventSink().send([replayed]);
    expect(await count()).toBe(before);
    const second = await compactLake(lake, { now: NOW });
    expect(second.rawFiles).toBe(2);
    expect(second.workspaceDays).toBe(1);
    expect(
      await lakeFilesFor(lake, { workspaceId: b.workspaceId, firstDay: '2026-03-10', lastDay: '2026-03-10' }),
    ).toMatchObject({ raw: [] });
    expect(await count()).toBe(before + 1);
    // Replayed again after the merge: still one event.
    await getEventSink().send([replayed]);
    expect(await count()).toBe(before + 1);
    await compactLake(lake, { now: NOW });
    expect(await count()).toBe(before + 1);
    const exported = await exportAnalyticsEvents(b.workspaceId, { range: '7d', eventType: 'all', limit: 1000 }, NOW);
    expect(exported.data.filter((e) => e.eventId === 'evt-late-replay')).toHaveLength(1);
  });
});

describe('partition pruning of the local lake', () => {
  it("lists only the workspace's shard and compacted folder, and the window's days", async () => {
    const files = await lakeFilesFor(process.env.LOCAL_LAKE_DIR!, {
      workspaceId: a.workspaceId,
      firstDay: '2026-03-09',
      lastDay: '2026-03-15',
    });
    expect(files.raw.length).toBeGreaterThan(0);
    for (const file of files.raw) {
      expect(file).toContain(`/events/shard=${shardOf(a.workspaceId)}/dt=2026-03-`);
      const day = /dt=(\d{4}-\d{2}-\d{2})/.exec(file)![1]!;
      expect(day >= '2026-03-09' && day <= '2026-03-15').toBe(true);
    }
    for (const file of files.compacted) expect(file).toContain(`/compacted/workspace_id=${a.workspaceId}/dt=2026-03-`);
    await expect(
      lakeFilesFor(process.env.LOCAL_LAKE_DIR!, {
        workspaceId: '../etc',
        firstDay: '2026-03-09',
        lastDay: '2026-03-15',
      }),
    ).rejects.toThrow(/Unsafe/);
  });
});
