import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, type _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTableStream } from '@shared/local/local-outbound';
import { createTableStreamReader } from '@shared/local/local-table-stream';

const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(() => {
  client.destroy();
});

describe('the local table stream', () => {
  it('the test table is created with a NEW_AND_OLD_IMAGES stream, as deployed', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME! }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(await ensureTableStream(client, process.env.TABLE_NAME!)).toBe(Table?.LatestStreamArn);
  });

  it('a table made before outbound events (no stream) gets its stream turned on', async () => {
    const name = `${process.env.TABLE_NAME}-old`;
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    const arn = await ensureTableStream(client, name);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(arn).toBe(Table?.LatestStreamArn);
  });
});

/**
 * A loopback proxy in front of DynamoDB Local's streams API (JSON 1.0 wire, as AWS speaks it)
 * that answers the faults DynamoDB Local and the service give a stream reader: `GetRecords`
 * refused with HTTP 400 (`ExpiredIteratorException`; `TrimmedDataAccessException`, which
 * DynamoDB Local answers under load and a reader retrying the same iterator never gets past)
 * and a `GetRecords` answer without `NextShardIterator` on an open shard.
 */
const startStreamsFaultProxy = async (target: string) => {
  const faults = { errors: [] as string[], dropNext: 0 };
  const refused = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const getRecords = req.headers['x-amz-target'] === 'DynamoDBStreams_20120810.GetRecords';
      // An iterator refused once stays refused, as an expired or trimmed one does.
      const iterator = getRecords ? (JSON.parse(body.toString('utf8')) as { ShardIterator: string }).ShardIterator : '';
      const error = getRecords ? (refused.get(iterator) ?? faults.errors.shift()) : undefined;
      if (error) {
        refused.set(iterator, error);
        const text = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${error}`, message: error });
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() });
        res.end(text);
        return;
      }
      const url = new URL(req.url ?? '/', target);
      const forward = httpRequest(url, { method: req.method, headers: req.headers }, (upstream) => {
        const answer: Buffer[] = [];
        upstream.on('data', (c: Buffer) => answer.push(c));
        upstream.on('end', () => {
          let text = Buffer.concat(answer).toString('utf8');
          if (getRecords && upstream.statusCode === 200 && faults.dropNext > 0) {
            faults.dropNext -= 1;
            const parsed = JSON.parse(text) as { NextShardIterator?: string };
            delete parsed.NextShardIterator;
            text = JSON.stringify(parsed);
          }
          // The body changed: its length changes and DynamoDB's CRC32 of the old body goes.
          const { 'x-amz-crc32': _crc, ...kept } = upstream.headers;
          const headers = { ...kept, 'content-length': String(Buffer.byteLength(text)) };
          res.writeHead(upstream.statusCode ?? 500, headers);
          res.end(text);
        });
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};

describe('the local table stream reader', () => {
  const put = (n: number) =>
    client.send(
      new PutItemCommand({
        TableName: process.env.TABLE_NAME!,
        Item: { pk: { S: `STREAMTEST#${String(n)}` }, sk: { S: 'ITEM' } },
      }),
    );
  const keysOf = (records: StreamRecord[]) =>
    records.map((r) => r.dynamodb?.Keys?.pk?.S).filter((k): k is string => k?.startsWith('STREAMTEST#') ?? false);

  it('hands on every record written after it started, once and in order, through expired and trimmed iterators, answers without a next iterator and a failing handler', async () => {
    const proxy = await startStreamsFaultProxy(process.env.DYNAMODB_ENDPOINT!);
    const streams = new DynamoDBStreamsClient({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      await put(-1); // before the reader: not its to hand on
      const handed: string[] = [];
      let failOnce = true;
      const reader = createTableStreamReader({
        streams,
        streamArn: await ensureTableStream(client, process.env.TABLE_NAME!),
        handle: (records) => {
          if (failOnce && keysOf(records).includes('STREAMTEST#5')) {
            failOnce = false;
            return Promise.reject(new Error('the handler failed; the batch comes again'));
          }
          handed.push(...keysOf(records));
          return Promise.resolve(undefined);
        },
      });
      await reader.start();
      const pollUntil = async (count: number) => {
        for (let i = 0; i < 200 && handed.length < count; i++) await reader.poll().catch(() => false);
      };
      for (let n = 0; n < 5; n++) await put(n);
      proxy.faults.dropNext = 1;
      await pollUntil(5);
      proxy.faults.errors = ['ExpiredIteratorException', 'TrimmedDataAccessException', 'TrimmedDataAccessException'];
      for (let n = 5; n < 10; n++) await put(n);
      await pollUntil(10);
      proxy.faults.dropNext = 1;
      for (let n = 10; n < 15; n++) await put(n);
      await pollUntil(15);
      for (let i = 0; i < 5; i++) await reader.poll();

      expect(handed).toEqual(Array.from({ length: 15 }, (_, n) => `STREAMTEST#${String(n)}`));
      expect(failOnce).toBe(false);
      expect(proxy.faults).toEqual({ errors: [], dropNext: 0 });
      expect(reader.recoveries()).toBeGreaterThanOrEqual(5);
    } finally {
      streams.destroy();
      await proxy.close();
    }
  });
});
