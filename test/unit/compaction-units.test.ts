import { describe, expect, it } from 'vitest';
import {
  COMPACTION_UNIT_MAX_SCAN_BYTES,
  KEY_COLUMNS_PER_RAW_BYTE,
  planCompactionUnits,
  unitStart,
  unitTimeBounds,
  watermarkAfter,
  type CompactionUnit,
} from '@shared/analytics/lake/compaction-units';
import {
  GZIP_KEY_COLUMNS_PER_RAW_BYTE,
  measureCompression,
  planViralBacklog,
  syntheticListing,
  UNITS_PER_RUN,
} from '@bench/lake-cost';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const at = Date.parse('2026-11-20T12:30:00.000Z'); // hours ending by 12:00 are closed
const key = (shard: string, day: string, hour: string, file: string) =>
  `events/shard=${shard}/dt=${day}/hour=${hour}/${file}.json`;

/** Every listed object of a closed hour in exactly one unit; a partition in one whole unit, or split into disjoint ranges. */
const expectExactCover = (units: CompactionUnit[], closedKeys: string[]) => {
  const seen = units.flatMap((u) => u.objects.map((o) => o.key));
  expect(seen.length).toBe(new Set(seen).size);
  expect([...seen].sort()).toEqual([...closedKeys].sort());
  const partitionUnits = new Map<string, CompactionUnit[]>();
  for (const unit of units)
    for (const o of unit.objects) {
      const partition = `${o.shard}/${o.day}/${o.hour}`;
      const list = partitionUnits.get(partition) ?? [];
      if (!list.includes(unit)) list.push(unit);
      partitionUnits.set(partition, list);
    }
  for (const list of partitionUnits.values()) if (list.length > 1) expect(list.every((u) => u.partial)).toBe(true);
  // A unit's statements read its shards x hours (and a partial one its object range): only its own objects.
  for (const unit of units) {
    const others = units.filter((u) => u !== unit && u.day === unit.day);
    for (const other of others)
      for (const o of other.objects)
        if (unit.shards.includes(o.shard) && unit.hours.includes(o.hour))
          expect(unit.partial && other.partial && other.shards[0] === unit.shards[0]).toBe(true);
  }
};

const expectOldestFirst = (units: CompactionUnit[]) => {
  const starts = units.map(unitStart);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
};

describe('byte-bounded compaction units', () => {
  it('packs closed hours of a day into one unit while they fit, never across days, never the open hour', () => {
    const listing = [
      { key: key('01', '2026-11-19', '23', 'a'), size: 10 * MiB },
      { key: key('02', '2026-11-20', '09', 'b'), size: 10 * MiB },
      { key: key('01', '2026-11-20', '10', 'c'), size: 20 * MiB },
      { key: key('01', '2026-11-20', '12', 'open'), size: 5 * MiB }, // 12:00-13:00 is open at 12:30
      { key: 'events/shard=01/dt=2026-11-20/hour=10/.tmp', size: 1 },
    ];
    const plan = planCompactionUnits(listing, { now: at });
    expect(plan.units.map((u) => [u.day, u.hours, u.shards, u.objects.length, u.partial])).toEqual([
      ['2026-11-19', ['23'], ['01'], 1, false],
      ['2026-11-20', ['09', '10'], ['01', '02'], 2, false],
    ]);
    expect(plan.units[1]!.bytes).toBe(30 * MiB);
    expect(plan.units[1]!.estimatedScanBytes).toBe(30 * MiB + Math.ceil(30 * MiB * KEY_COLUMNS_PER_RAW_BYTE));
    expect(new Date(watermarkAfter(plan, 0)).toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(new Date(watermarkAfter(plan, 1)).toISOString()).toBe('2026-11-20T09:00:00.000Z');
    expect(new Date(watermarkAfter(plan, 2)).toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(unitTimeBounds(plan.units[1]!)).toEqual({ from: '2026-11-20T09', to: '2026-11-20T11' });
    expect(unitTimeBounds({ day: '2026-11-19', hours: ['23'] })).toEqual({
      from: '2026-11-19T23',
      to: '2026-11-20T00',
    });
  });

  it('splits an hour too big for one statement by shard, and a shard-hour too big into ranges of its objects', () => {
    const max = 100 * MiB;
    const listing = [
      ...Array.from({ length: 5 }, (_, i) => ({ key: key('00', '2026-11-20', '10', `v${i}`), size: 30 * MiB })),
      { key: key('03', '2026-11-20', '10', 'x'), size: 20 * MiB },
      { key: key('04', '2026-11-20', '10', 'y'), size: 20 * MiB },
      { key: key('04', '2026-11-20', '11', 'z'), size: 1 * MiB },
    ];
    const plan = planCompactionUnits(listing, { now: at, maxScanBytes: max });
    expect(
      plan.units.map((u) => [u.hours.join(), u.shards.join(), u.objects.map((o) => o.key.slice(-7)), u.partial]),
    ).toEqual([
      ['10', '03,04', ['/x.json', '/y.json'], false],
      ['10', '00', ['v0.json', 'v1.json'], true],
      ['10', '00', ['v2.json', 'v3.json'], true],
      ['10', '00', ['v4.json'], true],
      ['11', '04', ['/z.json'], false],
    ]);
    for (const unit of plan.units) expect(unit.estimatedScanBytes).toBeLessThanOrEqual(max);
    // A range's de-duplication side covers its whole shard-hour (150 MiB).
    expect(plan.units[1]!.estimatedScanBytes).toBe(60 * MiB + Math.ceil(150 * MiB * KEY_COLUMNS_PER_RAW_BYTE));
    expectExactCover(
      plan.units,
      listing.map((o) => o.key),
    );
    // Half of hour 10 done: the watermark stays at its start.
    expect(new Date(watermarkAfter(plan, 2)).toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(new Date(watermarkAfter(plan, 4)).toISOString()).toBe('2026-11-20T11:00:00.000Z');
  });

  it('bounds its estimate of the de-duplication side by what our event lines measure', () => {
    const measured = measureCompression(5_000);
    const keyBytes = measured.keyBytesPerGzipByte * measured.gzipBytes;
    expect(keyBytes / measured.jsonBytes).toBeLessThanOrEqual(KEY_COLUMNS_PER_RAW_BYTE);
    expect(measured.keyBytesPerGzipByte).toBeLessThanOrEqual(GZIP_KEY_COLUMNS_PER_RAW_BYTE);
    expect(measured.ratio).toBeGreaterThan(4);
  });

  it('a week of missed runs at the viral plan: every statement under half the cutoff, every object once, oldest first', () => {
    const compression = measureCompression(5_000);
    const report: string[] = [];
    for (const gzip of [false, true]) {
      const backlog = planViralBacklog(compression, { gzip });
      expect(backlog.hours).toBe(168);
      for (const unit of backlog.units)
        expect(unit.estimatedScanBytes).toBeLessThanOrEqual(COMPACTION_UNIT_MAX_SCAN_BYTES);
      expect(backlog.largestUnitScanBytes).toBeLessThanOrEqual(COMPACTION_UNIT_MAX_SCAN_BYTES);
      expectOldestFirst(backlog.units);
      expect(new Set(backlog.units.flatMap((u) => u.hours.map((h) => `${u.day}T${h}`))).size).toBe(168);
      report.push(
        `${gzip ? 'gzip' : 'uncompressed'}: ${backlog.objects} objects, ${(backlog.bytes / 1e9).toFixed(0)} GB, ${backlog.units.length} units (${backlog.unitsPerHour} per hour), largest ${(backlog.largestUnitScanBytes / GiB).toFixed(2)} GiB, runs to clear at ${UNITS_PER_RUN} units a run: ${backlog.runsToClear}`,
      );
      if (gzip) expect(backlog.runsToClear).toBeLessThan(168);
    }
    // The exact-cover check over the week is quadratic in units: run it on one day of the listing.
    const day = syntheticListing({
      end: Date.parse('2026-11-20T00:00:00.000Z'),
      hours: 24,
      ratio: 1,
      lineBytes: compression.jsonBytes / compression.events,
    });
    const plan = planCompactionUnits(day, { now: Date.parse('2026-11-20T00:15:00.000Z') });
    expectExactCover(
      plan.units,
      day.map((o) => o.key),
    );
    console.log(`viral week backlog: ${report.join('; ')}`);
  });
});
