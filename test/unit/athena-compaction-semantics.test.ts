import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { AnalyticsUnavailableError } from '@shared/analytics/query/analytics-engine';
import { exportPageQuery } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { compactLakeOnAthena } from '@shared/analytics/lake/athena-compaction';
import { WATERMARK_KEY } from '@shared/analytics/lake/compaction-plan';
import { createDuckDbEngine, getDuckDbInstance, sqlString } from '@shared/analytics/query/duckdb-engine';
import { COMPACTED_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { duckDbAthena } from '@test/support/duckdb-athena';

/**
 * What the deployed compaction's statements DO, executed: the exact SQL the Athena path sends,
 * run on DuckDB over a local lake laid out like the bucket (test/support/duckdb-athena.ts; the
 * UNLOAD as a partitioned COPY that adds files). A Firehose duplicate, an event replayed into a
 * compacted hour, and an UNLOAD that wrote its files and then failed: every event is visible
 * exactly once at every step, in the compacted files and through the analytics SQL.
 */
const BUCKET = 'linkservice-lake';
const A = 'ws_alpha';
const B = 'ws_beta';
const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'athena-compaction-lake-'));
afterAll(() => {
  rmSync(lakeDir, { recursive: true, force: true });
});
/** A fresh local sink per send (as each Firehose flush is an object): a sink caches the folders it made, and deleting a partition's last object removes its folder locally. */
const sink = { send: (events: EventRecord[]) => createLocalLakeSink(lakeDir).send(events) };

const event = (workspaceId: string, eventId: string, timestamp: string): EventRecord => ({
  ...blankEvent({ eventId, timestamp, eventType: 'click', workspaceId, trafficType: 'human' }),
  linkId: `lnk_${workspaceId}`,
});

const compact = (at: string, athena = duckDbAthena(lakeDir, BUCKET)) =>
  compactLakeOnAthena({
    ...athena,
    workgroup: 'wg',
    database: 'db',
    lake: createLocalLakeStore(lakeDir),
    lakeBucket: BUCKET,
    at: new Date(at),
    deadline: Date.now() + 120_000,
    sleep: async () => {},
  });

/** eventId -> copies in the compacted Parquet files of a workspace. */
const compactedCopies = async (workspaceId: string): Promise<Record<string, number>> => {
  const glob = path.join(lakeDir, COMPACTED_PREFIX, `workspace_id=${workspaceId}`, '**', '*.parquet');
  const connection = await (await getDuckDbInstance()).connect();
  try {
    const rows = (
      await connection.runAndReadAll(
        `SELECT "eventId", count(*) FROM read_parquet(${sqlString(glob)}) GROUP BY 1 ORDER BY 1`,
      )
    ).getRows();
    return Object.fromEntries(rows.map(([id, n]) => [String(id), Number(n)]));
  } finally {
    connection.closeSync();
  }
};

/** The events the analytics SQL sees for a workspace (raw + compacted, each once), sorted. */
const visible = async (workspaceId: string, at: string): Promise<string[]> => {
  const window = analyticsWindow('7d', new Date(at));
  const rows = await createDuckDbEngine(lakeDir).query(
    exportPageQuery({ workspaceId, scope: { kind: 'workspace' }, window }, 1000, null),
    {
      workspaceId,
      firstDay: window.firstDay,
      lastDay: window.lastDay,
    },
  );
  return rows.map((r) => r.event_id!).sort();
};

const rawKeys = async () => {
  const keys: string[] = [];
  for await (const key of createLocalLakeStore(lakeDir).list(RAW_PREFIX)) keys.push(key);
  return keys.sort();
};

describe('deployed compaction statements, executed: nothing vanishes, nothing counts twice', () => {
  it('compacts closed hours once per event, picks up a late replay, and survives an UNLOAD that failed after writing', async () => {
    await sink.send([
      event(A, 'a1', '2026-11-20T09:05:00.000Z'),
      event(A, 'a2', '2026-11-20T09:10:00.000Z'),
      event(B, 'b1', '2026-11-20T10:00:00.000Z'),
    ]);
    await sink.send([event(A, 'a1', '2026-11-20T09:05:00.000Z')]); // Firehose delivered it twice
    await sink.send([event(A, 'a3', '2026-11-20T12:10:00.000Z')]); // the open hour at 12:30

    const first = await compact('2026-11-20T12:30:00.000Z');
    expect(first).toMatchObject({ watermark: '2026-11-20T12:00:00.000Z', workspaceDays: 2, skippedWorkspaces: [] });
    expect(await compactedCopies(A)).toEqual({ a1: 1, a2: 1 });
    expect(await compactedCopies(B)).toEqual({ b1: 1 });
    expect((await rawKeys()).every((k) => k.includes('/hour=12/'))).toBe(true);
    expect(await visible(A, '2026-11-20T12:30:00.000Z')).toEqual(['a1', 'a2', 'a3']);

    // Hours later a replay lands in the compacted 09:00 hour: a1 again and a4, which was missing.
    await sink.send([event(A, 'a1', '2026-11-20T09:05:00.000Z'), event(A, 'a4', '2026-11-20T09:20:00.000Z')]);
    expect(await visible(A, '2026-11-20T13:30:00.000Z')).toEqual(['a1', 'a2', 'a3', 'a4']);

    // A run whose UNLOAD writes its files and then fails: raw objects and watermark stay.
    const failing = duckDbAthena(lakeDir, BUCKET, { failAfterWrite: (sql) => sql.startsWith('UNLOAD') });
    const rawBefore = await rawKeys();
    await expect(compact('2026-11-20T13:30:00.000Z', failing)).rejects.toBeInstanceOf(AnalyticsUnavailableError);
    expect(await rawKeys()).toEqual(rawBefore);
    expect(JSON.parse(readFileSync(path.join(lakeDir, WATERMARK_KEY), 'utf8')).closedBefore).toBe(
      '2026-11-20T12:00:00.000Z',
    );
    // The orphaned files hold only events not compacted before; queries still count each once.
    expect(await compactedCopies(A)).toEqual({ a1: 1, a2: 1, a3: 1, a4: 1 });
    expect(await visible(A, '2026-11-20T13:30:00.000Z')).toEqual(['a1', 'a2', 'a3', 'a4']);

    // The next run: writes nothing twice, removes the raw objects, moves the watermark.
    const retry = duckDbAthena(lakeDir, BUCKET);
    const report = await compact('2026-11-20T13:30:00.000Z', retry);
    expect(report.watermark).toBe('2026-11-20T13:00:00.000Z');
    expect(await compactedCopies(A)).toEqual({ a1: 1, a2: 1, a3: 1, a4: 1 });
    expect(await compactedCopies(B)).toEqual({ b1: 1 });
    expect(await rawKeys()).toEqual([]);
    expect(await visible(A, '2026-11-20T13:30:00.000Z')).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(await visible(B, '2026-11-20T13:30:00.000Z')).toEqual(['b1']);
    expect(existsSync(path.join(lakeDir, WATERMARK_KEY))).toBe(true);
    // Every statement sent was the Athena text (parameters bound, UNLOAD partitioned into compacted/).
    expect(
      retry.statements
        .filter((s) => s.sql.startsWith('UNLOAD'))
        .every((s) => s.sql.includes(`TO 's3://${BUCKET}/${COMPACTED_PREFIX}'`)),
    ).toBe(true);
  });
});
