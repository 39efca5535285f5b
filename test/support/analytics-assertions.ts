import { expect } from 'vitest';
import type { EventRecord } from '@shared/events/event-record';
import type { AnalyticsData } from '@shared/analytics/query/analytics-types';
import {
  expectedBreakdowns,
  expectedRecent,
  expectedSummary,
  expectedTimeseries,
  type Range,
} from './analytics-fixtures';
import { http } from '@test/support/http-client';

/** Every number of an AnalyticsData against the expectations computed from `selected`. */
export const expectAnalyticsMatches = (
  actual: AnalyticsData,
  selected: EventRecord[],
  range: Range,
  now: Date,
  recentLimit = 20,
) => {
  const summary = expectedSummary(selected);
  expect(actual.summary).toEqual(summary);
  expect(actual.launchViewMetrics).toEqual({
    impressions: summary.launchViewImpressions,
    autoOpenAttempts: summary.launchViewAutoOpenAttempts,
    primaryClicks: summary.launchViewPrimaryClicks,
    secondaryClicks: summary.launchViewSecondaryClicks,
  });
  expect(actual.timeseries.map(({ label: _label, ...point }) => point)).toEqual(
    expectedTimeseries(selected, range, now),
  );
  for (const point of actual.timeseries) {
    expect(point.label).toBe(
      range === '24h'
        ? `${point.bucketStart.slice(0, 10)} ${point.bucketStart.slice(11, 13)}:00`
        : point.bucketStart.slice(0, 10),
    );
  }
  const breakdowns = expectedBreakdowns(selected);
  for (const [name, rows] of Object.entries(breakdowns)) {
    const got = actual[name as keyof typeof breakdowns];
    expect(
      got.map((r) => [r.key, r.count]),
      name,
    ).toEqual(rows.map((r) => [r.key, r.count]));
    // Rounded to 2 decimals: within half a hundredth of the exact share.
    got.forEach((r, i) => {
      expect(Math.abs(r.percentage - rows[i]!.percentage), `${name} ${r.key}`).toBeLessThanOrEqual(0.005 + 1e-9);
    });
    got.forEach((r) => {
      expect(Number(r.percentage.toFixed(2))).toBe(r.percentage);
    });
  }
  expect(actual.recentEvents).toEqual(expectedRecent(selected, recentLimit));
};

/**
 * How the API counts one link's clicks: the analytics summary's total (all traffic) over a
 * range, and the raw export's click events of the link (one page of up to 100, last 24 hours).
 */
export const linkClickCounts = (baseUrl: string, headers: Record<string, string>, linkId: string) => ({
  total: async (range: '24h' | '7d'): Promise<number> => {
    const res = await http(baseUrl, 'GET', `/v1/analytics/links/${linkId}?range=${range}&traffic=all`, { headers });
    expect(res.status).toBe(200);
    return res.body.data.summary.totalClicks as number;
  },
  exported: async (): Promise<{ eventId: string; linkId?: string }[]> => {
    const res = await http(baseUrl, 'GET', '/v1/analytics/events?range=24h&eventType=click&limit=100', { headers });
    expect(res.status).toBe(200);
    return (res.body.data as { eventId: string; linkId?: string }[]).filter((e) => e.linkId === linkId);
  },
});
