import { beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { createDeepLink } from '@shared/links/create-deep-link';
import { http } from '@test/support/http-client';
import {
  expectedBreakdowns,
  expectedSummary,
  generateFixtureEvents,
  newestFirst,
  type FixtureLink,
} from '@test/support/analytics-fixtures';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';
import { TEST_ORIGIN } from '@test/support/test-origin';

let t: TestStack;
let shortLinkId: string;
let deepLinkId: string;
let deepLinkKey: string;
let events: EventRecord[];
const DAY = 86_400_000;

const server = (key = t.tenantA.serverKey) => ({ 'api-key': key });
const appKey = (key = t.tenantA.deepLinkApp.appKey) => ({ 'api-key': key });

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const created = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: server(),
    json: { url: 'https://example.com/e2e', domain: t.tenantA.domain, tracking: { utmCampaign: 'launch' } },
  });
  shortLinkId = created.body.data.id;
  const deep = await createDeepLink(t.tenantA.workspaceId, { deepLinkAppId: t.tenantA.deepLinkApp.id }, TEST_ORIGIN);
  deepLinkId = deep.id;
  deepLinkKey = deep.key;
  const links: FixtureLink[] = [
    {
      workspaceId: t.tenantA.workspaceId,
      linkId: shortLinkId,
      linkType: 'SHORTLINK',
      deepLinkAppId: null,
      domain: t.tenantA.domain,
      key: created.body.data.key,
      utmCampaign: 'launch',
    },
    {
      workspaceId: t.tenantA.workspaceId,
      linkId: deepLinkId,
      linkType: 'DEEPLINK',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
      domain: deep.domain,
      key: deep.key,
      utmCampaign: null,
    },
  ];
  // Well inside the 7d window (the server's clock is a few ms later than ours): no edge events here.
  const now = Date.now();
  events = generateFixtureEvents({ now: new Date(now), links, perLink: 400, seed: 7 }).filter((e) => {
    const at = Date.parse(e.timestamp);
    return at >= now - 6 * DAY && at <= now - 60_000;
  });
  await getEventSink().send(events);
});

const of = (f: (e: EventRecord) => boolean, traffic: 'human' | 'all' | 'bots' = 'human') =>
  events.filter((e) => f(e) && (traffic === 'all' || e.trafficType === (traffic === 'human' ? 'human' : 'bot')));

describe('GET /v1/analytics/links/{linkId}', () => {
  it('answers AnalyticsData for the default range (7d) and traffic (human)', async () => {
    const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${shortLinkId}`, { headers: server() });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'summary',
        'timeseries',
        'recentEvents',
        'launchViewMetrics',
        'customerEvents',
        'deviceBreakdown',
        'browserBreakdown',
        'osBreakdown',
        'geoBreakdown',
        'referrerBreakdown',
        'campaignBreakdown',
        'destinationBreakdown',
        'ruleBreakdown',
        'variantBreakdown',
      ].sort(),
    );
    const selected = of((e) => e.linkId === shortLinkId);
    expect(data.summary).toEqual(expectedSummary(selected));
    expect(data.timeseries).toHaveLength(7);
    expect(data.timeseries.reduce((sum: number, p: { totalClicks: number }) => sum + p.totalClicks, 0)).toBe(
      data.summary.totalClicks,
    );
    expect(data.deviceBreakdown.map((r: { key: string; count: number }) => [r.key, r.count])).toEqual(
      expectedBreakdowns(selected).deviceBreakdown.map((r) => [r.key, r.count]),
    );
    expect(data.campaignBreakdown).toEqual([
      { key: 'launch', label: 'launch', count: data.summary.totalClicks, percentage: 100 },
    ]);
    expect(data.recentEvents[0].eventId).toBe([...selected].sort(newestFirst)[0]!.eventId);
  });

  it('honours range and traffic, and works for deep links', async () => {
    const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${deepLinkId}?range=24h&traffic=bots`, {
      headers: server(),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.timeseries).toHaveLength(24);
    expect(res.body.data.summary.humanClicks).toBe(0);
    const all = await http(t.baseUrl, 'GET', `/v1/analytics/links/${deepLinkId}?range=90d&traffic=all`, {
      headers: server(),
    });
    expect(all.body.data.timeseries).toHaveLength(90);
    expect(all.body.data.summary).toEqual(expectedSummary(of((e) => e.linkId === deepLinkId, 'all')));
  });

  it('is 404 for another workspace and an unknown id, 403 for an app key, 400 for bad range/traffic', async () => {
    expect(
      (await http(t.baseUrl, 'GET', `/v1/analytics/links/${shortLinkId}`, { headers: server(t.tenantB.serverKey) }))
        .body.error.code,
    ).toBe('not_found');
    expect((await http(t.baseUrl, 'GET', '/v1/analytics/links/lnk_unknown', { headers: server() })).status).toBe(404);
    expect((await http(t.baseUrl, 'GET', `/v1/analytics/links/${shortLinkId}`, { headers: appKey() })).status).toBe(
      403,
    );
    for (const query of ['range=1y', 'traffic=robots', 'range=', 'range=7D']) {
      const res = await http(t.baseUrl, 'GET', `/v1/analytics/links/${shortLinkId}?${query}`, { headers: server() });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details[0].path).toBe(query.split('=')[0]);
    }
  });
});

describe('GET /v1/analytics/deep-link-app', () => {
  it('answers the app of the app key, with topLinks', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app?range=7d&traffic=all', { headers: appKey() });
    expect(res.status).toBe(200);
    const selected = of((e) => e.deepLinkAppId === t.tenantA.deepLinkApp.id, 'all');
    expect(res.body.data.summary).toEqual(expectedSummary(selected));
    expect(res.body.data.topLinks).toEqual([
      expect.objectContaining({
        linkId: deepLinkId,
        shortLink: localShortLink(t.edgeUrl, t.tenantA.deepLinkApp.domain, deepLinkKey),
        humanClicks: expectedSummary(selected).humanClicks,
      }),
    ]);
    expect((await http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app', { headers: server() })).status).toBe(403);
  });

  it('answers a tenant with no events at all with zeros and every bucket, not 503', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app?range=30d', {
      headers: appKey(t.tenantB.deepLinkApp.appKey),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toMatchObject({
      humanClicks: 0,
      botClicks: 0,
      totalClicks: 0,
      uniqueVisitors: 0,
      lastActivityAt: null,
    });
    expect(res.body.data.timeseries).toHaveLength(30);
    expect(res.body.data.topLinks).toEqual([]);
  });
});

describe('GET /v1/analytics/events', () => {
  it('pages through every event once, newest first, with the signed cursor', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/v1/analytics/events?limit=9${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await http(t.baseUrl, 'GET', path, { headers: server() });
      expect(res.status).toBe(200);
      expect(res.body.pagination.limit).toBe(9);
      ids.push(...res.body.data.map((e: { eventId: string }) => e.eventId));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(ids).toEqual([...events].sort(newestFirst).map((e) => e.eventId));
  });

  it('filters by eventType, caps limit at 100, defaults to 25, and refuses bad values', async () => {
    const clicks = await http(t.baseUrl, 'GET', '/v1/analytics/events?eventType=click&limit=500&range=7d', {
      headers: server(),
    });
    expect(clicks.body.pagination.limit).toBe(100);
    expect(clicks.body.data.every((e: { eventType: string }) => e.eventType === 'click')).toBe(true);
    expect(clicks.body.data.length).toBe(Math.min(100, events.filter((e) => e.eventType === 'click').length));
    expect(events.length).toBeGreaterThan(25);
    const defaults = await http(t.baseUrl, 'GET', '/v1/analytics/events', { headers: server() });
    expect(defaults.body.pagination).toMatchObject({ limit: 25, hasMore: true });
    for (const query of ['limit=0', 'limit=abc', 'limit=1.5', 'limit=-3', 'eventType=pageview', 'range=2d']) {
      const res = await http(t.baseUrl, 'GET', `/v1/analytics/events?${query}`, { headers: server() });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const bad = await http(t.baseUrl, 'GET', '/v1/analytics/events?cursor=not-a-cursor', { headers: server() });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_cursor');
    const otherFilter = await http(
      t.baseUrl,
      'GET',
      `/v1/analytics/events?eventType=install&cursor=${encodeURIComponent(defaults.body.pagination.nextCursor)}`,
      { headers: server() },
    );
    expect(otherFilter.body.error.code).toBe('invalid_cursor');
  });

  it("never shows another workspace's events", async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/analytics/events?range=90d&limit=100', {
      headers: server(t.tenantB.serverKey),
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toEqual({ limit: 100, nextCursor: null, hasMore: false });
  });
});
