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
