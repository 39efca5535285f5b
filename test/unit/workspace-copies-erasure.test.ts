import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KinesisStreamRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseQueryResults, eraseWorkspaceKeptFailures } from '@shared/admin/erase-workspace-copies';
import { createLocalLakeStore, type LakeStore } from '@shared/admin/lake-store';
import { keptKinesisFailure, parseKeptFailure } from '@shared/events/kept-failure-record';

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
});
