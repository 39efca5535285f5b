import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { loopbackCredentials } from './aws-loopback';

/**
 * A loopback bucket speaking S3's REST/XML wire format for the official S3 client (path-style):
 * ListObjectsV2 (paged `pageSize` keys at a time), GetObject, PutObject (with S3's conditional
 * writes: `If-None-Match: *`, `If-Match: <ETag>`, else 412), DeleteObject, DeleteObjects. Objects
 * live in `objects` (ETag: MD5 of the body); every call's name is appended to `calls`. Started
 * and closed with the file.
 */
export const s3LakeLoopback = (bucket: string, pageSize = 2) => {
  const state = { objects: new Map<string, string>(), calls: [] as string[], client: undefined as unknown as S3Client };
  const etagOf = (body: string) => `"${createHash('md5').update(body).digest('hex')}"`;
  const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const [, name, ...rest] = url.pathname.split('/');
      const key = decodeURIComponent(rest.join('/'));
      const body = Buffer.concat(chunks).toString('utf8');
      if (name !== bucket)
        return res
          .writeHead(404, { 'content-type': 'application/xml' })
          .end('<Error><Code>NoSuchBucket</Code></Error>');
      const { objects, calls } = state;
      if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
        calls.push('ListObjectsV2');
        const prefix = url.searchParams.get('prefix') ?? '';
        const all = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
        const start = Number(url.searchParams.get('continuation-token') ?? 0);
        const page = all.slice(start, start + pageSize);
        const more = start + pageSize < all.length;
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${pageSize}</MaxKeys><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>${start + pageSize}</NextContinuationToken>` : ''}${page.map((k) => `<Contents><Key>${xml(k)}</Key><Size>${objects.get(k)!.length}</Size></Contents>`).join('')}</ListBucketResult>`,
          );
      } else if (req.method === 'POST' && url.searchParams.has('delete')) {
        calls.push('DeleteObjects');
        const keys = [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) =>
          m[1]!.replaceAll('&lt;', '<').replaceAll('&amp;', '&'),
        );
        for (const k of keys) objects.delete(k);
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>`,
          );
      } else if (req.method === 'GET') {
        calls.push('GetObject');
        if (!objects.has(key))
          return res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(objects.get(key)!),
            etag: etagOf(objects.get(key)!),
          })
          .end(objects.get(key));
      } else if (req.method === 'PUT') {
        calls.push('PutObject');
        const ifNoneMatch = req.headers['if-none-match'];
        const ifMatch = req.headers['if-match'];
        const current = objects.get(key);
        if (
          (ifNoneMatch === '*' && current !== undefined) ||
          (ifMatch !== undefined && (current === undefined || etagOf(current) !== ifMatch))
        ) {
          calls.push('PutObject:412');
          return res
            .writeHead(412, { 'content-type': 'application/xml' })
            .end(
              '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
            );
        }
        objects.set(key, body);
        res.writeHead(200, { etag: etagOf(body) }).end();
      } else if (req.method === 'DELETE') {
        calls.push('DeleteObject');
        objects.delete(key);
        res.writeHead(204).end();
      } else res.writeHead(400).end();
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    state.client = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: loopbackCredentials,
    });
  });
  afterAll(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return state;
};
