import { describe, expect, it } from 'vitest';
import { eraseWorkspaceLake } from '@shared/admin/erase-workspace-lake';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { compactedWorkspacePath, rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { s3LakeLoopback } from '@test/support/s3-lake-loopback';

/**
 * The deployed lake erasure through the official S3 client against a loopback bucket speaking
 * S3's REST/XML wire format (test/support/s3-lake-loopback.ts: ListObjectsV2 paged two keys at a
 * time, GetObject, PutObject, DeleteObjects).
 */
const s3 = s3LakeLoopback('lake');
const { objects, calls } = s3;

const line = (workspaceId: string, eventId: string, timestamp = '2026-11-20T10:15:00.000Z') =>
  JSON.stringify({ eventId, workspaceId, timestamp, eventType: 'click' });

describe('lake erasure on S3', () => {
  it('rewrites the shard objects holding the workspace, deletes its compacted prefix, and leaves every other object', async () => {
    const A = 'ws_erase_me';
    const B = 'ws_keep_me';
    const shardA = rawPartitionPath(rawPartitionOf({ workspaceId: A, timestamp: '2026-11-20T10:15:00.000Z' }));
    const shardB = rawPartitionPath(rawPartitionOf({ workspaceId: B, timestamp: '2026-11-20T10:15:00.000Z' }));
    const fixture: Record<string, string> = {
      [`${shardA}/mixed.json`]: `${line(A, 'a1')}\n${line(B, 'b1')}\n${line(A, 'a2')}\n`,
      [`${shardA}/only-a.json`]: `${line(A, 'a3')}\n`,
      [`${shardA}/other.json`]: `${line(B, 'b2')}\nnot json\n`,
      [`${compactedWorkspacePath(A)}/dt=2026-11-19/events.parquet`]: 'PAR1-a',
      [`${compactedWorkspacePath(A)}/dt=2026-11-20/events.parquet`]: 'PAR1-a',
      [`${compactedWorkspacePath(B)}/dt=2026-11-19/events.parquet`]: 'PAR1-b',
      [`${shardB === shardA ? `${shardB}/b-only` : `${shardB}/b`}.json`]: `${line(B, 'b3')}\n`,
    };
    for (const [k, v] of Object.entries(fixture)) objects.set(k, v);

    const result = await eraseWorkspaceLake(createS3LakeStore(s3.client, 'lake'), A);

    expect(result).toEqual({
      location: 's3://lake',
      rawObjectsRead: shardA === shardB ? 4 : 3,
      rawObjectsRewritten: 1,
      rawObjectsDeleted: 1,
      rawRecordsRemoved: 3,
      compactedObjectsDeleted: 2,
    });
    expect(objects.get(`${shardA}/mixed.json`)).toBe(`${line(B, 'b1')}\n`);
    expect(objects.has(`${shardA}/only-a.json`)).toBe(false);
    expect(objects.get(`${shardA}/other.json`)).toBe(fixture[`${shardA}/other.json`]);
    expect([...objects.keys()].filter((k) => k.includes(A))).toEqual([]);
    expect([...objects.values()].filter((v) => v.includes(A))).toEqual([]);
    expect(objects.get(`${compactedWorkspacePath(B)}/dt=2026-11-19/events.parquet`)).toBe('PAR1-b');
    expect(calls.filter((c) => c === 'PutObject')).toHaveLength(1);
    expect(calls.filter((c) => c === 'DeleteObjects')).toHaveLength(2);
  });
});
