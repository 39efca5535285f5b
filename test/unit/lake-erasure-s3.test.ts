import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseWorkspaceLake } from '@shared/admin/erase-workspace-lake';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { compactedWorkspacePath, rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake-layout';
import { loopbackCredentials } from '@test/support/aws-loopback';

/**
 * The deployed lake erasure through the official S3 client against a loopback bucket speaking
 * S3's REST/XML wire format (ListObjectsV2 paged two keys at a time, GetObject, PutObject,
 * DeleteObjects).
 */
const objects = new Map<string, string>();
const calls: string[] = [];
let endpoint = '';
const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url!, 'http://x');
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const body = Buffer.concat(chunks).toString('utf8');
    expect(bucket).toBe('lake');
    if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
      calls.push('ListObjectsV2');
      const prefix = url.searchParams.get('prefix') ?? '';
      const all = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      const start = Number(url.searchParams.get('continuation-token') ?? 0);
      const page = all.slice(start, start + 2);
      const more = start + 2 < all.length;
      res.writeHead(200, { 'content-type': 'application/xml' }).end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>lake</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>${start + 2}</NextContinuationToken>` : ''}${page.map((k) => `<Contents><Key>${xml(k)}</Key><Size>${objects.get(k)!.length}</Size></Contents>`).join('')}</ListBucketResult>`,
      );
    } else if (req.method === 'POST' && url.searchParams.has('delete')) {
      calls.push('DeleteObjects');
      const keys = [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!.replaceAll('&lt;', '<').replaceAll('&amp;', '&'));
      for (const k of keys) objects.delete(k);
      res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>`);
    } else if (req.method === 'GET') {
      calls.push('GetObject');
      if (!objects.has(key)) return res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(objects.get(key)!) }).end(objects.get(key));
    } else if (req.method === 'PUT') {
      calls.push('PutObject');
      objects.set(key, body);
      res.writeHead(200, { etag: '"x"' }).end();
    } else res.writeHead(400).end();
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const line = (workspaceId: string, eventId: string, timestamp = '2026-11-20T10:15:00.000Z') => JSON.stringify({ eventId, workspaceId, timestamp, eventType: 'click' });

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
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: loopbackCredentials });

    const result = await eraseWorkspaceLake(createS3LakeStore(client, 'lake'), A);

    expect(result).toEqual({ location: 's3://lake', rawObjectsRead: shardA === shardB ? 4 : 3, rawObjectsRewritten: 1, rawObjectsDeleted: 1, rawRecordsRemoved: 3, compactedObjectsDeleted: 2 });
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
