import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KinesisStreamRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseQueryResults, eraseWorkspaceKeptFailures } from '@shared/admin/erase-workspace-copies';
import { createLocalLakeStore, type LakeStore } from '@shared/admin/lake-store';
import { formatRealtimeLogLine } from '@shared/edge/hot-links/realtime-log';
import { keptKinesisFailure, kinesisDataOf, parseKeptFailure } from '@shared/events/kept-failure-record';

let dir: string;
let failures: LakeStore;
let results: LakeStore;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'copies-erasure-'));
  failures = createLocalLakeStore(path.join(dir, 'failures'));
  results = createLocalLakeStore(path.join(dir, 'results'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
const record = (workspaceId: string): KinesisStreamRecord =>
  ({
    eventID: `shardId-000000000001:${String(++seq)}`,
    kinesis: {
      sequenceNumber: String(seq),
      partitionKey: 'p',
      data: Buffer.from(JSON.stringify({ eventType: 'click', workspaceId, linkId: 'lnk_1' })).toString('base64'),
    },
  }) as KinesisStreamRecord;
const keep = (key: string, records: KinesisStreamRecord[]) =>
  failures.putText(key, JSON.stringify(keptKinesisFailure(records, 'arn', 'RetryAttemptsExhausted', new Date())));

describe('workspace erasure reaches the copies of its events', () => {
  it("removes the workspace's records from kept failures (rewriting shared batches) and deletes every query result", async () => {
    await keep('click-counters/a.json', [record('ws_gone'), record('ws_other'), record('ws_gone')]);
    await keep('click-counters/b.json', [record('ws_gone')]);
    await keep('click-counters/c.json', [record('ws_other')]);
    await results.putText('athena/q1.csv', 'a,b\n1,2\n');
    await results.putText('athena/q1.csv.metadata', 'x');

    const erased = await eraseWorkspaceKeptFailures(failures, 'ws_gone');
    expect(erased).toMatchObject({ objectsRead: 3, objectsRewritten: 1, objectsDeleted: 1, recordsRemoved: 3 });
    const left: string[] = [];
    for await (const key of failures.list('')) left.push(key);
    expect(left.sort()).toEqual(['click-counters/a.json', 'click-counters/c.json']);
    const a = parseKeptFailure(await failures.getText('click-counters/a.json'));
    expect(a.records).toHaveLength(1);
    expect(a.batch.batchSize).toBe(1);
    // Running it again finds nothing more.
    expect(await eraseWorkspaceKeptFailures(failures, 'ws_gone')).toMatchObject({ recordsRemoved: 0 });

    expect(await eraseQueryResults(results)).toBe(2);
    const resultsLeft: string[] = [];
    for await (const key of results.list('')) resultsLeft.push(key);
    expect(resultsLeft).toEqual([]);
  });

  it("removes the lines of the workspace's links from kept click-log batches (they name no workspace)", async () => {
    const line = (host: string, key: string, via = 'd111111abcdef8.cloudfront.net') =>
      formatRealtimeLogLine({
        timestamp: '1764201600.123',
        'cs-method': 'GET',
        'cs-host': host,
        'x-host-header': via,
        'cs-uri-stem': `/${key}?ref=x`,
        'x-edge-request-id': `req-${host}-${key}`,
        'x-edge-result-type': 'FunctionGeneratedResponse',
      });
    const logRecord = (...lines: string[]): KinesisStreamRecord =>
      ({
        eventID: `shardId-000000000002:${String(++seq)}`,
        kinesis: {
          sequenceNumber: String(seq),
          partitionKey: 'p',
          data: Buffer.from(lines.map((l) => `${l}\n`).join('')).toString('base64'),
        },
      }) as KinesisStreamRecord;
    // go.example.com is shared: only the workspace's own key there is its.
    const linkPaths = new Set(['go.example.com/gone1', 'gone.example/abc']);
    await keep('edge/a.json', [
      logRecord(line('go.example.com', 'gone1')),
      logRecord(line('go.example.com', 'kept1')),
      logRecord(line('GONE.example', 'abc'), line('go.example.com', 'kept2')),
    ]);
    await keep('edge/b.json', [logRecord(line('gone.example', 'abc'))]);
    expect(parseKeptFailure(await failures.getText('edge/a.json')).kind).toBe('edge-click-logs');

    const erased = await eraseWorkspaceKeptFailures(failures, 'ws_gone', linkPaths);
    expect(erased).toMatchObject({ objectsRewritten: 1, objectsDeleted: 1, recordsRemoved: 3 });
    await expect(failures.getText('edge/b.json')).rejects.toThrow();
    const a = parseKeptFailure(await failures.getText('edge/a.json'));
    expect(a.kind).toBe('edge-click-logs');
    expect(a.batch.batchSize).toBe(2);
    expect(a.records.map((r) => kinesisDataOf(r as KinesisStreamRecord))).toEqual([
      `${line('go.example.com', 'kept1')}\n`,
      `${line('go.example.com', 'kept2')}\n`,
    ]);
    // Without the workspace's links, nothing of a click-log batch is removed.
    expect(await eraseWorkspaceKeptFailures(failures, 'ws_gone')).toMatchObject({ recordsRemoved: 0 });
  });
});
