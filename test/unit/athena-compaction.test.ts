import { beforeEach, describe, expect, it } from 'vitest';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { AnalyticsUnavailableError } from '@shared/analytics/query/analytics-engine';
import {
  compactionUnloadStatement,
  compactLakeOnAthena,
  UNLOAD_MAX_WORKSPACES,
} from '@shared/analytics/lake/athena-compaction';
import { WATERMARK_KEY } from '@shared/analytics/lake/compaction-plan';
import { rawPartitionOf, rawPartitionPath, shardOf } from '@shared/analytics/lake/lake-layout';
import { athenaDialectProblems } from '@test/support/athena-dialect';
import { fakeAthenaApi, resultPages, type AthenaCall } from '@test/support/fake-athena';
import { s3LakeLoopback } from '@test/support/s3-lake-loopback';

/**
 * The deployed compaction's Athena path: the official @aws-sdk/client-athena (real serializer,
 * fake transport) and the official S3 client against a loopback bucket. What is asserted is what
 * AWS would receive: every QueryString and its ExecutionParameters, and what the run does to
 * the lake (raw objects removed only after their UNLOAD succeeded; the watermark moves only
 * when the whole run succeeds).
 */
const BUCKET = 'linkservice-lake';
const s3 = s3LakeLoopback(BUCKET, 3);
const A = 'ws_alpha';
const B = 'ws_beta';
const AT = new Date('2026-11-20T12:30:00.000Z'); // closed: hours ending by 12:00 (10-minute grace)

const rawKey = (workspaceId: string, timestamp: string, file: string) =>
  `${rawPartitionPath(rawPartitionOf({ workspaceId, timestamp }))}/${file}.json`;
const line = (workspaceId: string, eventId: string, timestamp: string) =>
  JSON.stringify({ eventId, workspaceId, timestamp, eventType: 'click' }) + '\n';

/** A fake Athena: SELECT DISTINCT answers `workspacesByDay`, UNLOAD writes nothing; `fails` picks statements that end FAILED. */
const athenaFor = (workspacesByDay: Record<string, string[]>, fails: (sql: string) => boolean = () => false) => {
  const sqlById = new Map<string, { sql: string; params: string[] }>();
  return fakeAthenaApi((call: AthenaCall, calls) => {
    switch (call.operation) {
      case 'StartQueryExecution': {
        const id = `q-${calls.filter((c) => c.operation === 'StartQueryExecution').length}`;
        sqlById.set(id, { sql: call.input.QueryString, params: call.input.ExecutionParameters ?? [] });
        return { body: { QueryExecutionId: id } };
      }
      case 'GetQueryExecution': {
        const failed = fails(sqlById.get(call.input.QueryExecutionId)!.sql);
        return {
          body: {
            QueryExecution: {
              QueryExecutionId: call.input.QueryExecutionId,
              Status: failed
                ? { State: 'FAILED', StateChangeReason: 'HIVE_PATH_ALREADY_EXISTS (test)' }
                : { State: 'SUCCEEDED' },
            },
          },
        };
      }
      case 'GetQueryResults': {
        const { sql, params } = sqlById.get(call.input.QueryExecutionId)!;
        if (sql.startsWith('UNLOAD'))
          return { status: 400, body: { __type: 'InvalidRequestException', Message: 'UNLOAD has no result set' } };
        const day = params.find((p) => /^'\d{4}-\d{2}-\d{2}'$/.test(p))!.slice(1, -1);
        return {
          body: resultPages(
            ['workspace_id'],
            (workspacesByDay[day] ?? []).map((ws) => [ws]),
            1000,
          )[0],
        };
      }
      default:
        return { status: 400, body: { __type: 'InvalidRequestException', Message: `unexpected ${call.operation}` } };
    }
  });
};

const run = (athena: ReturnType<typeof athenaFor>['athena'], options: { at?: Date; deadline?: number } = {}) =>
  compactLakeOnAthena({
    athena,
    workgroup: 'stack-analytics',
    database: 'stack_analytics',
    lake: createS3LakeStore(s3.client, BUCKET),
    lakeBucket: BUCKET,
    at: options.at ?? AT,
    deadline: options.deadline ?? Date.now() + 60_000,
    sleep: async () => {},
  });

const starts = (calls: AthenaCall[]) => calls.filter((c) => c.operation === 'StartQueryExecution').map((c) => c.input);
const literal = (value: string) => `'${value}'`;

beforeEach(() => {
  s3.objects.clear();
  s3.calls.length = 0;
});

describe('deployed lake compaction on Athena (UNLOAD into the compacted layout)', () => {
  it('sends, per closed day, the workspaces query then one UNLOAD, exactly; then removes the raw objects and writes the watermark', async () => {
    const late = rawKey(A, '2026-11-19T23:40:00.000Z', 'fh-1');
    const morningA = rawKey(A, '2026-11-20T09:05:00.000Z', 'fh-2');
    const morningB = rawKey(B, '2026-11-20T09:06:00.000Z', 'fh-3');
    const open = rawKey(A, '2026-11-20T12:10:00.000Z', 'fh-4');
    s3.objects.set(late, line(A, 'e1', '2026-11-19T23:40:00.000Z'));
    s3.objects.set(morningA, line(A, 'e2', '2026-11-20T09:05:00.000Z'));
    s3.objects.set(morningB, line(B, 'e3', '2026-11-20T09:06:00.000Z'));
    s3.objects.set(open, line(A, 'e4', '2026-11-20T12:10:00.000Z'));
    const { athena, calls } = athenaFor({ '2026-11-19': [A], '2026-11-20': [A, B] });

    const report = await run(athena);

    const sent = starts(calls);
    expect(sent).toHaveLength(4);
    // 1. The workspaces of 2026-11-19's closed partitions (exact text and parameters).
    expect(sent[0]!.QueryString).toBe(`SELECT DISTINCT workspaceId AS workspace_id
FROM events
WHERE shard IN (?)
  AND dt = ?
  AND hour IN (?)
  AND workspaceId IS NOT NULL
  AND eventId IS NOT NULL
ORDER BY workspace_id`);
    expect(sent[0]!.ExecutionParameters).toEqual([literal(shardOf(A)), "'2026-11-19'", "'23'"]);
    // 2. Its UNLOAD: A's new events of that day, partitioned into compacted/workspace_id=/dt=/.
    expect(sent[1]!.ExecutionParameters).toEqual([
      literal(shardOf(A)),
      "'2026-11-19'",
      "'23'",
      "'ws_alpha'",
      "'ws_alpha'",
      "'2026-11-19'",
      // The NOT EXISTS reads only compacted rows of the unit's hours.
      "'2026-11-19T23'",
      "'2026-11-20T00'",
    ]);
    // 3. and 4. 2026-11-20: both shards' hour 09, then one UNLOAD for both workspaces.
    const shardsAB = [...new Set([shardOf(A), shardOf(B)])].sort().map(literal);
    expect(sent[2]!.ExecutionParameters).toEqual([
      ...[...new Set([shardOf(A), shardOf(B)])].sort().map(literal),
      "'2026-11-20'",
      "'09'",
    ]);
    expect(sent[3]!.ExecutionParameters).toEqual([
      ...shardsAB,
      "'2026-11-20'",
      "'09'",
      "'ws_alpha'",
      "'ws_beta'",
      "'ws_alpha'",
      "'ws_beta'",
      "'2026-11-20'",
      "'2026-11-20T09'",
      "'2026-11-20T10'",
    ]);
    const unload = sent[3]!.QueryString as string;
    expect(unload).toBe(compactionUnloadStatement(BUCKET, { day: '2026-11-20', hours: ['09'] }, [A, B]).sql);
    expect(unload).toMatch(/^UNLOAD \(\n {2}SELECT eventId, /);
    expect(unload).toContain(
      `) TO 's3://${BUCKET}/compacted/'\nWITH (format = 'PARQUET', compression = 'ZSTD', partitioned_by = ARRAY['workspace_id', 'dt'])`,
    );
    // De-duplicated by eventId, minus what is already compacted, sorted by eventId.
    expect(unload).toContain('row_number() OVER (PARTITION BY eventId ORDER BY eventId) AS copy_number');
    expect(unload).toMatch(
      /WHERE copy_number = 1\s+AND NOT EXISTS \(\s+SELECT 1\s+FROM events_compacted done\s+WHERE done\.workspace_id IN \(\?, \?\)\s+AND done\.dt = \?\s+AND done\."timestamp" >= \?\s+AND done\."timestamp" < \?\s+AND done\.workspace_id = raw\.workspace_id\s+AND done\.eventId = raw\.eventId/,
    );
    expect(unload).toMatch(/\)\n {2}ORDER BY eventId\n\) TO/);
    for (const input of sent) {
      expect(input.QueryString).not.toContain('ws_alpha');
      expect(athenaDialectProblems(input.QueryString)).toEqual([]);
      expect(input.QueryString.split('?').length - 1).toBe(input.ExecutionParameters.length);
      expect(input.WorkGroup).toBe('stack-analytics');
      expect(input.QueryExecutionContext).toEqual({ Database: 'stack_analytics', Catalog: 'AwsDataCatalog' });
      expect(input.ResultReuseConfiguration).toEqual({ ResultReuseByAgeConfiguration: { Enabled: false } });
      expect(typeof input.ClientRequestToken).toBe('string');
    }
    // UNLOAD writes files, not a result set: results are read for the workspaces queries only.
    expect(calls.filter((c) => c.operation === 'GetQueryResults').map((c) => c.input.QueryExecutionId)).toEqual([
      'q-1',
      'q-3',
    ]);

    expect(report).toEqual({
      watermark: '2026-11-20T12:00:00.000Z',
      rawFiles: 3,
      workspaceDays: 3,
      statements: 4,
      skippedWorkspaces: [],
      // The workspace-days written (their links' click counters are settled from them).
      compacted: [
        { workspaceId: 'ws_alpha', day: '2026-11-19' },
        { workspaceId: 'ws_alpha', day: '2026-11-20' },
        { workspaceId: 'ws_beta', day: '2026-11-20' },
      ],
      // One unit per day (a day never shares a unit), both done; sized from the listing's bytes.
      units: 2,
      unitsLeft: 0,
      largestUnitScanBytes: expect.any(Number),
      backlogSeconds: 30 * 60,
      // Every closed hour compacted: days before the watermark's are merged (no hourly objects
      // here: the fake Athena writes none) and the watermark object switches readers to them.
      mergedBefore: '2026-11-20',
      hourlyObjectsRemoved: 0,
      mergedWorkspaceDays: 0,
    });
    expect([...s3.objects.keys()].sort()).toEqual([WATERMARK_KEY, open].sort());
    expect(JSON.parse(s3.objects.get(WATERMARK_KEY)!)).toEqual({
      closedBefore: '2026-11-20T12:00:00.000Z',
      mergedBefore: '2026-11-20',
      ranAt: AT.toISOString(),
      engine: 'athena',
    });
  });

  it('leaves the raw objects and the watermark as they were when a statement fails; the next run does the work', async () => {
    const previous =
      JSON.stringify({
        closedBefore: '2026-11-20T09:00:00.000Z',
        ranAt: '2026-11-20T09:15:00.000Z',
        engine: 'athena',
      }) + '\n';
    const key = rawKey(A, '2026-11-20T10:20:00.000Z', 'fh-5');
    s3.objects.set(WATERMARK_KEY, previous);
    s3.objects.set(key, line(A, 'e5', '2026-11-20T10:20:00.000Z'));

    const failing = athenaFor({ '2026-11-20': [A] }, (sql) => sql.startsWith('UNLOAD'));
    await expect(run(failing.athena)).rejects.toBeInstanceOf(AnalyticsUnavailableError);
    expect(s3.objects.get(WATERMARK_KEY)).toBe(previous);
    expect(s3.objects.has(key)).toBe(true);
    expect(s3.calls).not.toContain('DeleteObjects');
    expect(s3.calls).not.toContain('PutObject');

    // Retried by the next scheduled run: the same statements, then the object goes and the watermark moves.
    const retry = athenaFor({ '2026-11-20': [A] });
    await run(retry.athena, { at: new Date('2026-11-20T13:15:00.000Z') });
    expect(starts(retry.calls).map((s) => s.ExecutionParameters)).toEqual(
      starts(failing.calls).map((s) => s.ExecutionParameters),
    );
    expect(s3.objects.has(key)).toBe(false);
    expect(JSON.parse(s3.objects.get(WATERMARK_KEY)!).closedBefore).toBe('2026-11-20T13:00:00.000Z');
  });

  it('picks up an event replayed into an hour already compacted (its UNLOAD excludes events already compacted)', async () => {
    s3.objects.set(rawKey(B, '2026-11-20T09:06:00.000Z', 'fh-6'), line(B, 'e3', '2026-11-20T09:06:00.000Z'));
    await run(athenaFor({ '2026-11-20': [B] }).athena);
    expect([...s3.objects.keys()]).toEqual([WATERMARK_KEY]);

    // Hours later, a replay lands in 09:00 again (e3 once more, and e6 that was missing).
    const replayed = rawKey(B, '2026-11-20T09:06:00.000Z', 'replay-1');
    s3.objects.set(replayed, line(B, 'e3', '2026-11-20T09:06:00.000Z') + line(B, 'e6', '2026-11-20T09:07:00.000Z'));
    const next = athenaFor({ '2026-11-20': [B] });
    await run(next.athena, { at: new Date('2026-11-20T15:15:00.000Z') });
    const [workspaces, unload] = starts(next.calls);
    expect(workspaces!.ExecutionParameters).toEqual([literal(shardOf(B)), "'2026-11-20'", "'09'"]);
    expect(unload!.QueryString).toContain('AND NOT EXISTS (');
    expect(unload!.ExecutionParameters).toEqual([
      literal(shardOf(B)),
      "'2026-11-20'",
      "'09'",
      "'ws_beta'",
      "'ws_beta'",
      "'2026-11-20'",
      "'2026-11-20T09'",
      "'2026-11-20T10'",
    ]);
    expect(s3.objects.has(replayed)).toBe(false);
  });

  it(`splits a day's workspaces into UNLOADs of at most ${UNLOAD_MAX_WORKSPACES} (Athena's partition limit per statement)`, async () => {
    const many = Array.from({ length: 150 }, (_, i) => `ws_${String(i).padStart(3, '0')}`);
    s3.objects.set(rawKey(A, '2026-11-20T08:00:00.000Z', 'fh-7'), line(A, 'e7', '2026-11-20T08:00:00.000Z'));
    const { athena, calls } = athenaFor({ '2026-11-20': many });
    const report = await run(athena);
    const unloads = starts(calls).filter((s) => (s.QueryString as string).startsWith('UNLOAD'));
    expect(unloads).toHaveLength(2);
    const workspacesOf = (params: string[]) =>
      params.filter((p) => p.startsWith("'ws_")).slice(0, params.filter((p) => p.startsWith("'ws_")).length / 2);
    expect(workspacesOf(unloads[0]!.ExecutionParameters)).toEqual(many.slice(0, 100).map(literal));
    expect(workspacesOf(unloads[1]!.ExecutionParameters)).toEqual(many.slice(100).map(literal));
    expect(report.workspaceDays).toBe(150);
  });

  it('leaves a day raw when a line carries a workspace id that cannot name a folder (reported, not lost)', async () => {
    const key = rawKey(A, '2026-11-20T07:00:00.000Z', 'fh-8');
    s3.objects.set(key, line(A, 'e8', '2026-11-20T07:00:00.000Z'));
    const { athena, calls } = athenaFor({ '2026-11-20': [A, '../escape'] });
    const report = await run(athena);
    expect(report.skippedWorkspaces).toEqual(['../escape']);
    expect(
      starts(calls)
        .filter((s) => (s.QueryString as string).startsWith('UNLOAD'))
        .map((s) => s.ExecutionParameters.filter((p: string) => p.includes('escape'))),
    ).toEqual([[]]);
    expect(s3.objects.has(key)).toBe(true);
  });

  it('starts nothing and changes nothing once its deadline has passed (the work waits for the next run)', async () => {
    const key = rawKey(A, '2026-11-20T06:00:00.000Z', 'fh-9');
    s3.objects.set(key, line(A, 'e9', '2026-11-20T06:00:00.000Z'));
    const { athena, calls } = athenaFor({ '2026-11-20': [A] });
    const report = await run(athena, { deadline: Date.now() - 1 });
    expect(report).toMatchObject({ units: 0, unitsLeft: 1, watermark: '2026-11-20T06:00:00.000Z' });
    // The backlog's age: from the oldest uncompacted hour (06:00) to the run (12:30).
    expect(report.backlogSeconds).toBe(6.5 * 3600);
    expect(calls).toEqual([]);
    expect([...s3.objects.keys()]).toEqual([key]);
  });
});
