import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { eraseWorkspaceLake } from '@shared/admin/erase-workspace-lake';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { aggregateQuery, groupingColumns } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { createDuckDbEngine } from '@shared/analytics/query/duckdb-engine';
import { eventsFromErrorObject } from '@shared/analytics/lake/lake-error-records';
import { RAW_FILE_EXTENSION, rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { decodeStoredText, isGzip } from '@shared/analytics/lake/raw-objects';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';

/**
 * Raw objects are gzip JSON lines (`.json.gz`), as Firehose writes them with CompressionFormat
 * GZIP: the local sink writes them so, and every reader (DuckDB, compaction, erasure, the error
 * replay) reads them, beside uncompressed `.json` objects written before the switch.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const NOW = new Date('2026-11-20T12:30:00.000Z');
const event = (workspaceId: string, i: number): EventRecord => ({
  ...blankEvent({
    eventId: `${workspaceId}-${i}`,
    timestamp: new Date(Date.parse('2026-11-20T09:00:00.000Z') + i * 60_000).toISOString(),
    eventType: 'click',
    workspaceId,
    trafficType: 'human',
  }),
  linkId: 'lnk_1',
  visitorId: `v${i}`,
});
const rawFiles = (dir: string): string[] =>
  (readdirSync(path.join(dir, 'events'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json') || f.endsWith('.gz'))
    .map((f) => path.join(dir, 'events', f));
const clicks = async (dir: string, workspaceId: string) => {
  const window = analyticsWindow('7d', NOW);
  const rows = await createDuckDbEngine(dir).query(
    aggregateQuery({ workspaceId, scope: { kind: 'workspace' }, window, traffic: 'all', unit: window.unit }),
    { workspaceId, firstDay: window.firstDay, lastDay: window.lastDay },
  );
  return Number(rows.find((r) => r.grouping_id === String(2 ** groupingColumns.length - 1))?.human_clicks ?? 0);
};

describe('gzip raw objects', () => {
  it('the local sink writes gzip `.json.gz` objects; DuckDB reads them beside older `.json` ones; compaction consumes both', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'raw-gzip-'));
    dirs.push(dir);
    expect(RAW_FILE_EXTENSION).toBe('.json.gz');
    await createLocalLakeSink(dir).send([event('ws_a', 1), event('ws_a', 2)]);
    const [written] = rawFiles(dir);
    expect(written?.endsWith('.json.gz')).toBe(true);
    const bytes = readFileSync(written!);
    expect(isGzip(bytes)).toBe(true);
    expect(
      gunzipSync(bytes)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).eventId),
    ).toEqual(['ws_a-1', 'ws_a-2']);
    // An uncompressed object from before the switch, in the same partition (one event again: a duplicate).
    const legacy = path.join(dir, rawPartitionPath(rawPartitionOf(event('ws_a', 3))), 'legacy.json');
    mkdirSync(path.dirname(legacy), { recursive: true });
    writeFileSync(legacy, [event('ws_a', 3), event('ws_a', 2)].map((e) => JSON.stringify(e)).join('\n') + '\n');
    expect(await clicks(dir, 'ws_a')).toBe(3);
    const report = await compactLake(dir, { now: NOW });
    expect(report.rawFiles).toBe(2);
    expect(rawFiles(dir)).toEqual([]);
    expect(await clicks(dir, 'ws_a')).toBe(3);
  });

  it('erasure rewrites a gzip object gzip, without the workspace lines', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'raw-gzip-erase-'));
    dirs.push(dir);
    const [a, b] = ['ws_gone', 'ws_kept'];
    const partition = rawPartitionPath(rawPartitionOf(event(a, 1)));
    const key = `${partition}/shared${RAW_FILE_EXTENSION}`;
    const store = createLocalLakeStore(dir);
    await store.putBytes(key, gzipSync([event(a, 1), event(b, 2)].map((e) => JSON.stringify(e)).join('\n') + '\n'));
    const result = await eraseWorkspaceLake(store, a);
    expect(result).toMatchObject({ rawObjectsRead: 1, rawObjectsRewritten: 1, rawRecordsRemoved: 1 });
    const after = await store.getBytes(key);
    expect(isGzip(after)).toBe(true);
    expect(decodeStoredText(after).trim()).toBe(JSON.stringify(event(b, 2)));
  });

  it('a gzip errors/ object replays the same events as a plain one', () => {
    const doc = (e: EventRecord) =>
      JSON.stringify({ errorCode: 'x', rawData: Buffer.from(JSON.stringify(e) + '\n').toString('base64') });
    const text = [doc(event('ws_a', 1)), doc(event('ws_a', 2)), 'not json'].join('\n') + '\n';
    const plain = eventsFromErrorObject(text);
    expect(eventsFromErrorObject(gzipSync(text))).toEqual(plain);
    expect(plain.events.map((e) => e.eventId)).toEqual(['ws_a-1', 'ws_a-2']);
    expect(plain.unreadable).toBe(1);
  });
});
