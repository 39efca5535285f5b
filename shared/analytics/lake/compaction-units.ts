import { closedBeforeOf, parseRawKey, type RawObjectRef } from './compaction-plan';

/*
 * Compaction bounded by bytes. Athena cancels any query of the workgroup that scans more than its
 * per-query cutoff (BytesScannedCutoffPerQuery, 10 GiB here:
 * https://docs.aws.amazon.com/athena/latest/ug/workgroups-setting-control-limits-cloudwatch.html),
 * so a compaction statement over a backlog of several hours (or one hour of a viral workspace:
 * its shard holds all its events) would be cancelled, the watermark would never move and every
 * later run would retry the same statement. Instead a run's work is cut into UNITS sized from
 * the S3 listing (ListObjectsV2 returns each object's Size; Athena bills and counts the bytes it
 * reads from S3, compressed bytes for compressed objects:
 * https://docs.aws.amazon.com/athena/latest/ug/compression-formats.html), each estimated at no
 * more than half the cutoff, oldest first:
 *   - a unit never spans two days (an UNLOAD writes one day's partitions);
 *   - consecutive closed hours of a day share a unit while they fit;
 *   - an hour too big for one unit is split into ranges of its objects (sorted by key), each
 *     statement reading only its objects (`"$path" IN (...)`).
 * A run works units oldest first until its deadline; the watermark moves to the start of the
 * oldest hour that still has objects, so a backlog of any length is worked off in bounded runs.
 */

const HOUR = 3_600_000;

/** The workgroup's per-query cutoff (lib/analytics.ts sets the workgroup from this). */
export const ATHENA_BYTES_SCANNED_CUTOFF = 10 * 1024 ** 3;

/** Every compaction statement is planned at no more than this estimated scan: half the cutoff. */
export const COMPACTION_UNIT_MAX_SCAN_BYTES = ATHENA_BYTES_SCANNED_CUTOFF / 2;

/**
 * The de-duplication side of an UNLOAD (`NOT EXISTS` on events_compacted) reads the `eventId`
 * and `timestamp` columns of the compacted rows of the unit's workspaces and hours (Parquet:
 * only the columns named; row groups outside the hours are skipped by their min/max
 * statistics). Those two columns, uncompressed, are at most this share of the raw bytes of the
 * same events as stored (uncompressed JSON lines): test/unit/compaction-units.test.ts measures
 * it on our event lines (about 0.08).
 */
export const KEY_COLUMNS_PER_RAW_BYTE = 0.1;

/**
 * The same bound per byte of a gzip raw object (`.json.gz`, what Firehose writes): the key
 * columns are about 0.68 of the compressed bytes on our event lines (measured by the same test).
 */
export const GZIP_KEY_COLUMNS_PER_RAW_BYTE = 0.75;

/** The key-column bound of one raw object as stored: gzip objects by their `.gz` name. */
export const keyColumnsPerRawByteOf = (key: string): number =>
  key.endsWith('.gz') ? GZIP_KEY_COLUMNS_PER_RAW_BYTE : KEY_COLUMNS_PER_RAW_BYTE;

export interface RawObjectListing {
  key: string;
  /** Bytes as stored (S3 ListObjectsV2 `Size`). */
  size: number;
}

export interface SizedRawObject extends RawObjectRef {
  size: number;
}

export interface CompactionUnit {
  day: string;
  /** The hours the unit reads (sorted), and their shards. */
  hours: string[];
  shards: string[];
  /** The raw objects it reads (sorted by key) and their bytes. */
  objects: SizedRawObject[];
  bytes: number;
  /** True when the unit reads only some objects of its hour (the hour is split into object ranges). */
  partial: boolean;
  /** The unit's raw bytes plus the de-duplication side's bound over its hours' bytes. */
  estimatedScanBytes: number;
}

export interface UnitPlan {
  closedBefore: number;
  /** The units of every closed hour with raw objects, oldest first. */
  units: CompactionUnit[];
}

/** Upper bound of what one statement over `unitBytes` of raw objects scans, whose partitions hold `partitionBytes`. */
export const estimateScanBytes = (
  unitBytes: number,
  partitionBytes: number,
  keyRatio = KEY_COLUMNS_PER_RAW_BYTE,
): number => unitBytes + Math.ceil(partitionBytes * keyRatio);

/** The de-duplication side's bound over some raw objects (each by its own encoding, unless `keyRatio` is given). */
const keyBytesOf = (objects: readonly SizedRawObject[], keyRatio?: number): number =>
  objects.reduce((sum, o) => sum + o.size * (keyRatio ?? keyColumnsPerRawByteOf(o.key)), 0);

const hourKey = (o: RawObjectRef) => `${o.day}T${o.hour}`;

/** The first element of a list the planner built non-empty. */
const firstOf = <T>(list: readonly T[]): T => {
  const [first] = list;
  if (first === undefined) throw new Error('empty compaction group');
  return first;
};
const sumBytes = (objects: readonly SizedRawObject[]) => objects.reduce((sum, o) => sum + o.size, 0);
const byKey = (a: SizedRawObject, b: SizedRawObject) => a.key.localeCompare(b.key);

/** Groups in key order. */
const groupsBy = (objects: SizedRawObject[], keyOf: (o: SizedRawObject) => string): SizedRawObject[][] => {
  const out = new Map<string, SizedRawObject[]>();
  for (const o of objects) {
    const list = out.get(keyOf(o)) ?? [];
    list.push(o);
    out.set(keyOf(o), list);
  }
  return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([, list]) => list);
};

/**
 * The units of one run from the raw listing (keys and sizes): every object of a closed hour in
 * exactly one unit, units oldest first, each estimated at most `maxScanBytes`:
 *   - whole hours of a day share a unit while they fit (the statements read shards x hours);
 *   - an hour too big is split by shard (units of whole shard-hours of that hour only);
 *   - a shard-hour too big is split into ranges of its objects sorted by key (`partial`: the
 *     statements read only the range, `"$path" BETWEEN first AND last`); the de-duplication
 *     side still covers the shard-hour. An object that alone exceeds the bound gets a unit of
 *     its own (Firehose objects are at most its 64 MB buffer).
 */
export const planCompactionUnits = (
  listing: Iterable<RawObjectListing>,
  options: { now: number; graceMs?: number; maxScanBytes?: number; keyColumnsPerRawByte?: number },
): UnitPlan => {
  const closedBefore = closedBeforeOf(options.now, options.graceMs);
  const max = options.maxScanBytes ?? COMPACTION_UNIT_MAX_SCAN_BYTES;
  /** A statement over `unit` whose de-duplication side covers the partitions holding `partition`. */
  const estimate = (unit: readonly SizedRawObject[], partition: readonly SizedRawObject[]) =>
    sumBytes(unit) + Math.ceil(keyBytesOf(partition, options.keyColumnsPerRawByte));
  const fits = (objects: SizedRawObject[]) => estimate(objects, objects) <= max;
  const closed: SizedRawObject[] = [];
  for (const { key, size } of listing) {
    const ref = parseRawKey(key);
    if (!ref || Date.parse(`${ref.day}T${ref.hour}:00:00.000Z`) + HOUR > closedBefore) continue;
    closed.push({ ...ref, size: Math.max(0, size) });
  }
  const units: CompactionUnit[] = [];
  const push = (objects: SizedRawObject[], partition: readonly SizedRawObject[], partial: boolean) => {
    const sorted = [...objects].sort(byKey);
    const bytes = sumBytes(sorted);
    units.push({
      day: firstOf(sorted).day,
      hours: [...new Set(sorted.map((o) => o.hour))].sort(),
      shards: [...new Set(sorted.map((o) => o.shard))].sort(),
      objects: sorted,
      bytes,
      partial,
      estimatedScanBytes: estimate(sorted, partition),
    });
  };
  /** Packs groups (each a whole set of partitions), in order, into units that fit; `together` says which may share one. */
  const pack = (groups: SizedRawObject[][], together: (a: SizedRawObject, b: SizedRawObject) => boolean) => {
    let open: SizedRawObject[] = [];
    for (const group of groups) {
      if (open.length > 0 && (!together(firstOf(open), firstOf(group)) || !fits([...open, ...group]))) {
        push(open, open, false);
        open = [];
      }
      open.push(...group);
    }
    if (open.length > 0) push(open, open, false);
  };
  let fitting: SizedRawObject[][] = [];
  for (const hour of groupsBy(closed, hourKey)) {
    if (fits(hour)) {
      fitting.push(hour);
      continue;
    }
    // Too big for one statement: this hour alone, by shard; a shard-hour too big, by object ranges.
    pack(fitting, (a, b) => a.day === b.day);
    fitting = [];
    const shards = groupsBy(hour, (o) => o.shard);
    pack(shards.filter(fits), () => true);
    for (const objects of shards.filter((o) => !fits(o))) {
      const partitionKeyBytes = Math.ceil(keyBytesOf(objects, options.keyColumnsPerRawByte));
      let range: SizedRawObject[] = [];
      for (const object of [...objects].sort(byKey)) {
        if (range.length > 0 && sumBytes(range) + object.size + partitionKeyBytes > max) {
          push(range, objects, true);
          range = [];
        }
        range.push(object);
      }
      if (range.length > 0) push(range, objects, true);
    }
  }
  pack(fitting, (a, b) => a.day === b.day);
  return { closedBefore, units };
};

/** The start of a unit's oldest hour (epoch ms). */
export const unitStart = (unit: Pick<CompactionUnit, 'day' | 'hours'>): number =>
  Date.parse(`${unit.day}T${firstOf(unit.hours)}:00:00.000Z`);

/**
 * The watermark after a run that completed the first `done` units of its plan: the closed
 * instant when all are done, else the start of the oldest hour with work left (a later unit of
 * a split hour leaves its hour open).
 */
export const watermarkAfter = (plan: UnitPlan, done: number): number => {
  const left = plan.units.slice(done);
  return left.length === 0 ? plan.closedBefore : Math.min(plan.closedBefore, ...left.map(unitStart));
};

/** Time bounds of the unit's hours as timestamp text (ISO), `[from, to)`: where its events' timestamps lie. */
export const unitTimeBounds = (unit: Pick<CompactionUnit, 'day' | 'hours'>): { from: string; to: string } => {
  const last = firstOf([...unit.hours].reverse());
  return {
    from: `${unit.day}T${firstOf(unit.hours)}`,
    to: new Date(Date.parse(`${unit.day}T${last}:00:00.000Z`) + HOUR).toISOString().slice(0, 13),
  };
};
