import { describe, expect, it } from 'vitest';
import {
  aggregateQuery,
  exportPageQuery,
  linkClickCountsQuery,
  recentEventsQuery,
  topLinksQuery,
  variantConversionsQuery,
  type ScopeFilter,
} from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import {
  compactedLinkClickCountsQuery,
  compactionUnloadStatement,
  compactionWorkspacesQuery,
  UNLOAD_MAX_WORKSPACES,
  type CompactionScope,
} from '@shared/analytics/lake/athena-compaction';
import { athenaDialectProblems } from '@test/support/athena-dialect';

const NOW = new Date('2026-03-15T10:30:00.000Z');
const scopes = [{ kind: 'link', linkId: 'lnk_1' }, { kind: 'app', appId: 'app_1' }, { kind: 'workspace' }] as const;
const ranges = ['24h', '7d', '30d', '90d'] as const;
const traffics = [undefined, 'human', 'bots', 'all'] as const;
/** No watermark yet, one mid-day (the raw read adds an hour predicate) and one at a day's start. */
const rawFroms = [undefined, '2026-03-15T07:00:00.000Z', '2026-03-15T00:00:00.000Z'] as const;

/** Every SQL text the engines are given: each builder, for every scope, range, traffic and page position. */
const everyQuery = () => {
  const out: Array<{ name: string; sql: string; params: string[] }> = [];
  for (const range of ranges) {
    const window = analyticsWindow(range, NOW);
    for (const scope of scopes) {
      for (const [traffic, rawFrom] of traffics.flatMap((t) => rawFroms.map((r) => [t, r] as const))) {
        // Without any merged day (traffic unset), and with days before 2026-03-15 merged (daily files).
        const filter: ScopeFilter = {
          workspaceId: 'ws_A',
          scope,
          window,
          traffic,
          rawFrom,
          mergedBefore: traffic === undefined ? undefined : '2026-03-15',
        };
        const name = `${range}/${scope.kind}/${traffic ?? '-'}/raw from ${rawFrom ?? 'range start'}`;
        out.push({ name: `aggregate ${name}`, ...aggregateQuery({ ...filter, unit: window.unit }) });
        out.push({ name: `recent ${name}`, ...recentEventsQuery(filter, 20) });
        out.push({ name: `top links ${name}`, ...topLinksQuery(filter, 10) });
        out.push({ name: `variant conversions ${name}`, ...variantConversionsQuery(filter) });
        out.push({ name: `export ${name}`, ...exportPageQuery({ ...filter, eventType: 'click' }, 101, null) });
        out.push({
          name: `export next ${name}`,
          ...exportPageQuery(filter, 101, { timestamp: '2026-03-15T00:00:00.000Z', eventId: 'evt-1' }),
        });
      }
    }
  }
  // The deployed compaction's statements (athena-compaction.ts): one day's closed partitions, a batch of workspaces.
  // The settle of the click counters: a whole closed day, and a day's closed hours.
  for (const end of ['2026-03-15T00:00:00.000Z', '2026-03-15T10:00:00.000Z']) {
    const day = end.startsWith('2026-03-15T00') ? '2026-03-14' : '2026-03-15';
    const window = { start: `${day}T00:00:00.000Z`, end, firstDay: day, lastDay: day };
    out.push({
      name: `link click counts (${day} to ${end})`,
      ...linkClickCountsQuery({ workspaceId: 'ws_A', window }),
    });
  }
  const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
  const shards = Array.from({ length: 16 }, (_, s) => String(s).padStart(2, '0'));
  const workspaces = Array.from({ length: UNLOAD_MAX_WORKSPACES }, (_, i) => `ws_${i}`);
  const shapes: Array<{ name: string; day: CompactionScope; batch: string[] }> = [
    { name: 'one hour, one workspace', day: { day: '2026-03-14', shards: ['03'], hours: ['09'] }, batch: ['ws_A'] },
    { name: 'a whole day, a full batch', day: { day: '2026-03-14', shards, hours }, batch: workspaces },
    {
      name: 'a range of one shard-hour',
      day: {
        day: '2026-03-14',
        shards: ['00'],
        hours: ['09'],
        paths: { first: 's3://lake/events/shard=00/dt=2026-03-14/hour=09/a.json', last: 's3://lake/b.json' },
      },
      batch: ['ws_A'],
    },
  ];
  for (const { name, day, batch } of shapes) {
    out.push({ name: `compaction workspaces (${name})`, ...compactionWorkspacesQuery(day) });
    out.push({ name: `compaction unload (${name})`, ...compactionUnloadStatement('lake-bucket-1', day, batch) });
    out.push({
      name: `compaction unload into a merged day's daily files (${name})`,
      ...compactionUnloadStatement('lake-bucket-1', day, batch, 'daily'),
    });
    out.push({
      name: `settle click counts (${name})`,
      ...compactedLinkClickCountsQuery(day.day, batch, {
        from: `${day.day}T00:00:00.000Z`,
        to: `${day.day}T10:00:00.000Z`,
      }),
    });
    out.push({
      name: `settle click counts of a merged day (${name})`,
      ...compactedLinkClickCountsQuery(
        day.day,
        batch,
        { from: `${day.day}T00:00:00.000Z`, to: `${day.day}T10:00:00.000Z` },
        '2099-01-01',
      ),
    });
  }
  return out;
};

describe("Athena's dialect rules over every analytics SQL text", () => {
  it.each(everyQuery().map((q) => [q.name, q] as const))(
    '%s: parameters only in WHERE, Trino functions only',
    (_name, query) => {
      expect(athenaDialectProblems(query.sql)).toEqual([]);
      // One value per `?`, in order.
      expect(query.sql.split('?').length - 1).toBe(query.params.length);
    },
  );

  it('catches the shapes Athena refuses and DuckDB accepts (the check would have caught the bucket-unit parameter)', () => {
    const before = `WITH s AS (SELECT * FROM events WHERE workspace_id = ?)
SELECT to_iso8601(date_trunc(?, from_iso8601_timestamp("timestamp"))) AS bucket FROM s`;
    expect(athenaDialectProblems(before)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/\? parameter in SELECT clause/) }),
    ]);
    expect(athenaDialectProblems('SELECT a FROM t WHERE b = ? ORDER BY a LIMIT ?')).toHaveLength(1);
    expect(athenaDialectProblems('SELECT a FROM t JOIN u ON t.k = ? WHERE b = ?')).toHaveLength(1);
    expect(
      athenaDialectProblems('SELECT a FROM t WHERE b IN (SELECT c FROM u GROUP BY c HAVING count(*) > ?)'),
    ).toHaveLength(1);
    expect(athenaDialectProblems('SELECT a::VARCHAR FROM t WHERE b = ?')).toEqual([
      expect.objectContaining({ message: 'DuckDB-only operator ::' }),
    ]);
    expect(athenaDialectProblems("SELECT strftime(t, '%Y') FROM t")).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/strftime/) }),
    ]);
    // UNLOAD's destination and options take no parameters.
    expect(athenaDialectProblems('UNLOAD (SELECT a FROM t WHERE b = ?) TO ? WITH (format = ?)')).toHaveLength(2);
    // Quoted text is not code: a `?` or `::` inside a string or identifier is fine.
    expect(athenaDialectProblems(`SELECT 'a?b::c' AS "x?" FROM t WHERE b = ? AND (c > ? OR d IN (?, ?))`)).toEqual([]);
  });
});
