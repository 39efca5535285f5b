import { log } from '@shared/util/logger';
import { parseWatermark } from '../lake/compaction-plan';
import type { AnalyticsEngine } from './analytics-engine';
import { HOURS_IN_FLIGHT } from '../lake/lake-layout';

const HOUR = 3_600_000;

/*
 * Where a query starts reading the raw (not yet compacted) layout. Compaction records its
 * watermark (compacted/_watermark.json, `closedBefore`): the start of the oldest closed hour that
 * still held raw objects when the run listed the bucket, or the closed instant when it did
 * everything. Every raw object of an earlier hour was compacted and deleted by then, so a query
 * reads raw partitions only from the watermark's hour on, instead of every shard-hour of its
 * range (2,160 for 90 days, nearly all empty).
 *
 * Late arrivals: an object can land in an hour below the watermark after the run listed the
 * bucket (Firehose partitions by the event's own timestamp: a replay, a client's late send). The
 * next run lists it and moves the watermark back to that hour's start until it is compacted, so
 * it is read raw again from then on; before that listing it would be missed. To keep the usual
 * lateness visible at once, the raw read also covers the last RAW_LATE_READ_HOURS hours before the
 * current one, whatever the watermark says; an event later than that (a replay hours after) is
 * visible once the next compaction run (hourly) has compacted it.
 */
export const RAW_LATE_READ_HOURS = HOURS_IN_FLIGHT;

/**
 * The instant (ISO, an hour's start) from which a query reads raw partitions, or undefined (no
 * watermark yet: read raw over the whole range, as before any compaction ran).
 */
export const rawReadFrom = (watermark: string | undefined, now: Date): string | undefined => {
  const mark = watermark === undefined ? NaN : Date.parse(watermark);
  if (Number.isNaN(mark)) return undefined;
  const lateFloor = (Math.floor(now.getTime() / HOUR) - RAW_LATE_READ_HOURS) * HOUR;
  return new Date(Math.min(Math.floor(mark / HOUR) * HOUR, lateFloor)).toISOString();
};

/**
 * Reads the recorded watermark through `getText`, at most once per `ttlMs` (the watermark only
 * moves forward, so a stale value only makes a query read more raw hours, never fewer). A read
 * that fails (missing object, S3 error) is no watermark: the query reads raw over its whole range.
 */
export const cachedWatermarkReader = (
  getText: () => Promise<string>,
  {
    ttlMs = 60_000,
    now = Date.now,
    parse = parseWatermark,
  }: { ttlMs?: number; now?: () => number; parse?: (body: string) => string | undefined } = {},
): (() => Promise<string | undefined>) => {
  let cached: { at: number; value: string | undefined } | undefined;
  return async () => {
    if (cached && now() - cached.at < ttlMs) return cached.value;
    let value: string | undefined;
    try {
      value = parse(await getText());
    } catch (error) {
      log('warn', 'lake watermark unreadable; reading raw over the whole range', { error: String(error) });
      value = undefined;
    }
    cached = { at: now(), value };
    return value;
  };
};

/**
 * Where a query reads what (the watermark object, read once per request): raw partitions from
 * `rawFrom` on, merged days (before `mergedBefore`) from the daily files, the rest hourly. A
 * merged day's hourly files are removed only a run after the switch, so a reader holding an
 * older value still finds them.
 */
export const lakeReadBounds = async (
  engine: Pick<AnalyticsEngine, 'watermark' | 'mergedBefore'>,
  now: Date,
): Promise<{ rawFrom?: string; mergedBefore?: string }> => {
  const [watermark, mergedBefore] = await Promise.all([engine.watermark(), engine.mergedBefore?.()]);
  return { rawFrom: rawReadFrom(watermark, now), mergedBefore };
};
