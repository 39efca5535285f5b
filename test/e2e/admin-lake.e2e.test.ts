import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lakeFilesFor } from '@shared/analytics/query/duckdb-engine';
import { blankEvent } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { projectRoot } from '@shared/local/paths';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const lake = mkdtempSync(path.join(tmpdir(), 'admin-lake-'));
const errors = mkdtempSync(path.join(tmpdir(), 'admin-lake-errors-'));
afterAll(() => {
  rmSync(lake, { recursive: true, force: true });
  rmSync(errors, { recursive: true, force: true });
});

const admin = async (...args: string[]) => {
  const env = { ...process.env, LOG_LEVEL: 'silent' } as Record<string, string>;
  delete env.LOCAL_LAKE_DIR;
  const { stdout } = await run(tsx, ['scripts/admin.ts', ...args], { cwd: projectRoot, env });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
};

const event = (id: string, workspaceId: string, timestamp: string) =>
  blankEvent({ eventId: id, timestamp, eventType: 'click', workspaceId, trafficType: 'human' });

describe('admin compact-lake and replay-lake-errors', () => {
  it('compacts closed hours into per-workspace Parquet, keeps the open hour raw, and replays errors/ objects into the lake', async () => {
    const sink = createLocalLakeSink(lake);
    await sink.send([
      event('e1', 'ws_one', '2026-03-14T08:00:00.000Z'),
      event('e2', 'ws_two', '2026-03-14T09:30:00.000Z'),
      event('e3', 'ws_one', '2026-03-15T10:25:00.000Z'),
    ]);
    await sink.send([event('e1', 'ws_one', '2026-03-14T08:00:00.000Z')]);
    const report = await admin('compact-lake', '--lake-dir', lake, '--now', '2026-03-15T10:30:00.000Z', '--json');
    expect(report).toMatchObject({
      lakeDir: lake,
      watermark: '2026-03-15T10:00:00.000Z',
      rawFiles: 3,
      workspaceDays: 2,
      events: 2,
      skippedWorkspaces: [],
    });
    const one = await lakeFilesFor(lake, { workspaceId: 'ws_one', firstDay: '2026-03-14', lastDay: '2026-03-15' });
    expect(one.compacted.map((f) => path.relative(lake, f))).toEqual([
      'compacted/workspace_id=ws_one/dt=2026-03-14/events.parquet',
    ]);
    expect(one.raw).toHaveLength(1);
    expect(existsSync(path.join(lake, 'compacted/workspace_id=ws_two/dt=2026-03-14/events.parquet'))).toBe(true);

    mkdirSync(path.join(errors, 'activePartitionExceeded'));
    const record = (e: ReturnType<typeof event>) =>
      JSON.stringify({
        errorCode: 'DynamicPartitioning.ActivePartitionsLimitExceeded',
        rawData: Buffer.from(`${JSON.stringify(e)}\n`).toString('base64'),
      });
    writeFileSync(
      path.join(errors, 'activePartitionExceeded', 'obj-1'),
      `${record(event('e9', 'ws_two', '2026-03-14T09:45:00.000Z'))}\nnot json\n`,
    );
    expect(await admin('replay-lake-errors', errors, '--lake-dir', lake, '--json')).toEqual({
      files: 1,
      events: 1,
      unreadable: 1,
      erasedDropped: 0,
    });
    // The replayed event is raw in its own (already compacted) hour; the next run merges it.
    expect(
      (await lakeFilesFor(lake, { workspaceId: 'ws_two', firstDay: '2026-03-14', lastDay: '2026-03-14' })).raw,
    ).toHaveLength(1);
    expect(
      await admin('compact-lake', '--lake-dir', lake, '--now', '2026-03-15T10:30:00.000Z', '--json'),
    ).toMatchObject({ rawFiles: 1, workspaceDays: 1, events: 2 });
  });
});
