import type { AnalyticsRange } from './analytics-schemas';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;

export type BucketUnit = 'hour' | 'day';

/** The time span a range covers and its timeseries buckets. */
export interface AnalyticsWindow {
  unit: BucketUnit;
  /** Inclusive start: the start of the oldest bucket (ISO, UTC). */
  start: string;
  /** Exclusive end: `now` rounded up to the next whole minute (lets Athena reuse results). */
  end: string;
  /** Bucket starts, oldest first (ISO, UTC). */
  buckets: string[];
  /** Partition days the window touches (dt, inclusive). */
  firstDay: string;
  lastDay: string;
}

const bucketCount: Record<AnalyticsRange, number> = { '24h': 24, '7d': 7, '30d': 30, '90d': 90 };

/**
 * `24h`: the current hour and the 23 before it (24 hourly buckets); `7d`/`30d`/`90d`: today and
 * the days before it (7/30/90 daily buckets), UTC. The summary counts exactly the events the
 * buckets hold, so the timeseries always adds up to the summary.
 */
export const analyticsWindow = (range: AnalyticsRange, now: Date): AnalyticsWindow => {
  const unit: BucketUnit = range === '24h' ? 'hour' : 'day';
  const size = unit === 'hour' ? HOUR : DAY;
  const count = bucketCount[range];
  const current = Math.floor(now.getTime() / size) * size;
  const first = current - (count - 1) * size;
  const endMs = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE;
  const buckets = Array.from({ length: count }, (_, i) => new Date(first + i * size).toISOString());
  return {
    unit,
    start: new Date(first).toISOString(),
    end: new Date(endMs).toISOString(),
    buckets,
    firstDay: new Date(first).toISOString().slice(0, 10),
    lastDay: new Date(endMs - 1).toISOString().slice(0, 10),
  };
};

/** Display label of a bucket: `YYYY-MM-DD HH:00` for hours, `YYYY-MM-DD` for days (UTC). */
export const bucketLabel = (bucketStart: string, unit: BucketUnit): string =>
  unit === 'hour' ? `${bucketStart.slice(0, 10)} ${bucketStart.slice(11, 13)}:00` : bucketStart.slice(0, 10);
