import { COMPACTED_PREFIX, isRawObjectName, RAW_PREFIX } from './lake-layout';

/*
 * What one compaction run does, decided once for both engines: DuckDB over the local lake
 * (compact-lake.ts, `admin compact-lake`, `npm start`) and Athena over the deployed lake
 * (athena-compaction.ts, the scheduled Lambda). The raw objects are the work queue: a run takes
 * every raw object of a closed hour, whenever it landed, so a late object in an hour already
 * compacted (a replay, a client's late send) is picked up by the next run. The watermark is the
 * closed instant the last successful run compacted through; a failed run leaves it unmoved.
 */

const HOUR = 3_600_000;

/**
 * How long after an hour ends its raw objects may still arrive in the normal course: Firehose
 * delivers up to 1.5x its 60 s buffer interval late. Anything later (a replay hours later) lands
 * in an hour already compacted and is picked up by the next run (raw objects are the work queue).
 */
export const COMPACTION_GRACE_MS = 10 * 60_000;

/** Where a successful run records its watermark (local folder and bucket alike). */
export const WATERMARK_KEY = `${COMPACTED_PREFIX}_watermark.json`;

export interface RawObjectRef {
  /** `events/shard=SS/dt=YYYY-MM-DD/hour=HH/<file>.json.gz` (or `.json`, written before raw objects were compressed) */
  key: string;
  shard: string;
  day: string;
  hour: string;
}

export interface CompactionDay {
  day: string;
  /** Raw objects of the day's closed hours, sorted by key. */
  objects: RawObjectRef[];
  /** The shards and hours those objects are in (sorted): the partitions a run reads. */
  shards: string[];
  hours: string[];
}

export interface CompactionPlan {
  /** Hours ending at or before this instant are closed (epoch ms). */
  closedBefore: number;
  /** The same instant, ISO: the watermark a successful run records. */
  watermark: string;
  /** Days with raw objects of closed hours, oldest first. */
  days: CompactionDay[];
}

const RAW_KEY = /^events\/shard=(\d{2})\/dt=(\d{4}-\d{2}-\d{2})\/hour=(\d{2})\/([^/]+)$/;

/** A raw object's partition from its key; undefined for anything else (dot files: writes in progress). */
export const parseRawKey = (key: string): RawObjectRef | undefined => {
  const match = RAW_KEY.exec(key);
  if (!match || !key.startsWith(RAW_PREFIX)) return undefined;
  const [, shard, day, hour, file] = match as unknown as [string, string, string, string, string];
  if (file.startsWith('.') || !isRawObjectName(file)) return undefined;
  return { key, shard, day, hour };
};

/** The closed instant of a run at `now`: the start of the hour `graceMs` ago. */
export const closedBeforeOf = (now: number, graceMs = COMPACTION_GRACE_MS): number =>
  Math.floor((now - graceMs) / HOUR) * HOUR;

/** The work of one run from the raw keys it listed: every object of a closed hour, by day. */
export const planCompaction = (
  rawKeys: Iterable<string>,
  options: { now: number; graceMs?: number },
): CompactionPlan => {
  const closedBefore = closedBeforeOf(options.now, options.graceMs);
  const byDay = new Map<string, RawObjectRef[]>();
  for (const key of rawKeys) {
    const ref = parseRawKey(key);
    if (!ref || Date.parse(`${ref.day}T${ref.hour}:00:00.000Z`) + HOUR > closedBefore) continue;
    byDay.set(ref.day, [...(byDay.get(ref.day) ?? []), ref]);
  }
  const days = [...byDay]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, objects]) => ({
      day,
      objects: objects.sort((a, b) => a.key.localeCompare(b.key)),
      shards: [...new Set(objects.map((o) => o.shard))].sort(),
      hours: [...new Set(objects.map((o) => o.hour))].sort(),
    }));
  return { closedBefore, watermark: new Date(closedBefore).toISOString(), days };
};

/**
 * The watermark object's body: `closedBefore` (compaction) and `mergedBefore` (the daily merge:
 * days before it are read from the daily files; daily-merge.ts). The object is the manifest both
 * switch-overs read, written last by a run (after the files it points queries at).
 */
export const watermarkBody = (
  plan: Pick<CompactionPlan, 'watermark'>,
  ranAt: Date,
  engine: 'duckdb' | 'athena',
  mergedBefore?: string,
): string =>
  JSON.stringify({
    closedBefore: plan.watermark,
    ...(mergedBefore === undefined ? {} : { mergedBefore }),
    ranAt: ranAt.toISOString(),
    engine,
  }) + '\n';

/** The recorded daily-merge boundary (`YYYY-MM-DD`, exclusive), or undefined when no day was merged yet. */
export const parseMergedBefore = (body: string | undefined): string | undefined => {
  if (!body) return undefined;
  try {
    const value = (JSON.parse(body) as { mergedBefore?: unknown }).mergedBefore;
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** The recorded watermark (closedBefore, ISO), or undefined when none was written yet. */
export const parseWatermark = (body: string | undefined): string | undefined => {
  if (!body) return undefined;
  try {
    const value = (JSON.parse(body) as { closedBefore?: unknown }).closedBefore;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
};
