import { describe, expect, it } from 'vitest';
import {
  closedBeforeOf,
  parseRawKey,
  parseWatermark,
  planCompaction,
  watermarkBody,
} from '@shared/analytics/lake/compaction-plan';

/** The plan both compaction engines run (DuckDB locally, Athena deployed): which raw objects a run takes. */
describe('compaction plan', () => {
  const at = Date.parse('2026-11-20T12:05:00.000Z');

  it('closes an hour 10 minutes after it ends (Firehose delivers up to 1.5x its 60 s buffer late)', () => {
    expect(new Date(closedBeforeOf(at)).toISOString()).toBe('2026-11-20T11:00:00.000Z');
    expect(new Date(closedBeforeOf(Date.parse('2026-11-20T12:10:00.000Z'))).toISOString()).toBe(
      '2026-11-20T12:00:00.000Z',
    );
  });

  it('reads only raw objects of the layout: events/shard=SS/dt=/hour=/<name>.json, never a write in progress', () => {
    expect(parseRawKey('events/shard=07/dt=2026-11-20/hour=09/fh-1.json')).toEqual({
      key: 'events/shard=07/dt=2026-11-20/hour=09/fh-1.json',
      shard: '07',
      day: '2026-11-20',
      hour: '09',
    });
    for (const key of [
      'events/shard=07/dt=2026-11-20/hour=09/.fh-1.json.tmp',
      'events/shard=07/dt=2026-11-20/hour=09/fh-1.parquet',
      'events/shard=7/dt=2026-11-20/hour=09/fh-1.json',
      'compacted/workspace_id=ws/dt=2026-11-20/events.parquet',
      'errors/activePartitionExceeded/dt=2026-11-20/hour=09/x.json',
    ]) {
      expect(parseRawKey(key)).toBeUndefined();
    }
  });

  it('takes every object of a closed hour, whenever it landed (late ones included), by day with its shards and hours', () => {
    const plan = planCompaction(
      [
        'events/shard=03/dt=2026-11-20/hour=10/b.json',
        'events/shard=01/dt=2026-11-20/hour=10/a.json',
        'events/shard=03/dt=2026-11-20/hour=11/open.json', // 11:00-12:00 is not closed at 12:05
        'events/shard=03/dt=2026-11-18/hour=04/replayed-late.json', // a day compacted long ago: taken again
        'events/shard=03/dt=2026-11-20/hour=10/.c.json.tmp',
      ],
      { now: at },
    );
    expect(plan.watermark).toBe('2026-11-20T11:00:00.000Z');
    expect(plan.days).toEqual([
      {
        day: '2026-11-18',
        objects: [
          {
            key: 'events/shard=03/dt=2026-11-18/hour=04/replayed-late.json',
            shard: '03',
            day: '2026-11-18',
            hour: '04',
          },
        ],
        shards: ['03'],
        hours: ['04'],
      },
      {
        day: '2026-11-20',
        objects: [
          { key: 'events/shard=01/dt=2026-11-20/hour=10/a.json', shard: '01', day: '2026-11-20', hour: '10' },
          { key: 'events/shard=03/dt=2026-11-20/hour=10/b.json', shard: '03', day: '2026-11-20', hour: '10' },
        ],
        shards: ['01', '03'],
        hours: ['10'],
      },
    ]);
  });

  it('records and reads back the watermark', () => {
    const plan = planCompaction([], { now: at });
    expect(parseWatermark(watermarkBody(plan, new Date(at), 'athena'))).toBe('2026-11-20T11:00:00.000Z');
    expect(parseWatermark(undefined)).toBeUndefined();
    expect(parseWatermark('not json')).toBeUndefined();
  });
});
