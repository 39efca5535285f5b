import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  QueryCommand,
  ThrottlingException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';

/**
 * DynamoDB's per-partition-key limits, scaled to 1/20 (50 write and 150 read units per second
 * per key), enforced by the fault proxy and seen by the official client as DynamoDB answers
 * them. The proxy's clock is frozen (and moved by hand), so nothing here depends on time.
 */
const LIMITS = { writeUnitsPerSecond: 50, readUnitsPerSecond: 150 };
const table = process.env.TABLE_NAME!;
const tableArn = `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`;
let clock = 0;
let proxy: DynamoFaultProxy;
let client: DynamoDBClient;

const clientOf = (endpoint: string) =>
  // One attempt: the test sees the throttle the SDK would otherwise retry.
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, { perKeyLimits: LIMITS, now: () => clock });
  client = clientOf(proxy.endpoint);
  return async () => {
    client.destroy();
    await proxy.stop();
  };
});
beforeEach(() => {
  proxy.set({ perKeyLimits: LIMITS }); // full buckets for every test
});

const pk = (name: string) => ({ pk: { S: `LINK#${name}` }, sk: { S: 'LINK' } });
const click = (name: string) =>
  client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: pk(name),
      UpdateExpression: 'ADD clicks :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    }),
  );
const read = (name: string, consistent = false) =>
  client.send(new GetItemCommand({ TableName: table, Key: pk(name), ConsistentRead: consistent }));
const settle = async <T>(calls: Array<Promise<T>>) => {
  const results = await Promise.allSettled(calls);
  return {
    ok: results.filter((r) => r.status === 'fulfilled').length,
    errors: results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : [])),
  };
};
const available = (name: string, access: 'Read' | 'Write') =>
  proxy.unitsAvailable({ table, partitionValue: JSON.stringify({ S: `LINK#${name}` }), access });

describe('per-partition-key throughput limits (fault proxy)', () => {
  it('a hot key beyond 50 write units per second is throttled as an on-demand table throttles it; another key is not', async () => {
    const before = proxy.counts.throttles;
    const [hot, cold] = await Promise.all([
      settle(Array.from({ length: 200 }, () => click('hot-w'))),
      settle(Array.from({ length: 20 }, () => click('cold-w'))),
    ]);
    // A counter item under 1 KB: one write unit per update, 50 in the key's one-second bucket.
    expect(hot.ok).toBe(50);
    expect(cold).toEqual({ ok: 20, errors: [] });
    expect(proxy.counts.throttles - before).toBe(150);
    const error = hot.errors[0] as ThrottlingException;
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error.name).toBe('ThrottlingException');
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toMatch(/Throughput exceeds the current capacity of your table or index/);
    expect(error.throttlingReasons).toEqual([{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn }]);
    expect(hot.errors.every((e) => e instanceof ThrottlingException)).toBe(true);
    const stored = await read('hot-w', true);
    expect(stored.Item?.clicks).toEqual({ N: '50' });
  });

  it('the bucket refills at the key rate: half a second later, 25 more writes', async () => {
    await settle(Array.from({ length: 60 }, () => click('refill')));
    await expect(click('refill')).rejects.toBeInstanceOf(ThrottlingException);
    clock += 500;
    const again = await settle(Array.from({ length: 40 }, () => click('refill')));
    expect(again.ok).toBe(25);
  });

  it('reads: 150 units per second per key, eventually consistent reads cost half, and reads do not use the write budget', async () => {
    await client.send(
      new PutItemCommand({ TableName: table, Item: { ...pk('hot-r'), url: { S: 'https://example.com' } } }),
    );
    const eventual = await settle(Array.from({ length: 310 }, () => read('hot-r')));
    expect(eventual.ok).toBe(300);
    const error = eventual.errors[0] as ThrottlingException;
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error.throttlingReasons).toEqual([{ reason: 'TableReadKeyRangeThroughputExceeded', resource: tableArn }]);
    await expect(read('cold-r')).resolves.toBeDefined();
    await expect(click('hot-r')).resolves.toBeDefined();
    expect(proxy.counts.readThrottles).toBeGreaterThanOrEqual(10);
  });

  it('counts units as DynamoDB does: 4 KB per read unit, 1 KB per write unit, transactions twice', async () => {
    const big = { ...pk('big'), blob: { S: 'x'.repeat(5_000) } };
    await client.send(new PutItemCommand({ TableName: table, Item: big }));
    expect(available('big', 'Write')).toBe(50 - 5); // 5,0xx bytes: 5 write units
    await read('big', true);
    expect(available('big', 'Read')).toBe(150 - 2); // strongly consistent, two 4 KB units
    await read('big');
    expect(available('big', 'Read')).toBe(150 - 3); // eventually consistent: half
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: pk('tx'),
              UpdateExpression: 'ADD clicks :one',
              ExpressionAttributeValues: { ':one': { N: '1' } },
            },
          },
        ],
      }),
    );
    expect(available('tx', 'Write')).toBe(50 - 2);
  });

  it('batch calls: entries of a key without capacity come back unprocessed, the others are done', async () => {
    await settle(Array.from({ length: 50 }, () => click('batch-hot')));
    const written = await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: [
            { PutRequest: { Item: { ...pk('batch-hot'), v: { N: '1' } } } },
            { PutRequest: { Item: { ...pk('batch-cold'), v: { N: '1' } } } },
          ],
        },
      }),
    );
    expect(written.UnprocessedItems?.[table]).toEqual([
      { PutRequest: { Item: { ...pk('batch-hot'), v: { N: '1' } } } },
    ]);
    expect((await read('batch-cold', true)).Item?.v).toEqual({ N: '1' });
    expect((await read('batch-hot', true)).Item?.v).toBeUndefined();

    await settle(Array.from({ length: 300 }, () => read('batch-hot')));
    const got = await client.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [pk('batch-hot'), pk('batch-cold')] } } }),
    );
    expect(got.Responses?.[table]?.map((item) => item.pk?.S)).toEqual(['LINK#batch-cold']);
    expect(got.UnprocessedKeys?.[table]?.Keys).toEqual([pk('batch-hot')]);
    // Nothing of a batch fits: the whole call is throttled.
    await expect(
      client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [pk('batch-hot')] } } })),
    ).rejects.toBeInstanceOf(ThrottlingException);
  });

  it('an index key range is limited on its own, with the index ARN', async () => {
    const put = (n: number) =>
      client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...pk(`idx-${n}`), gsi1pk: { S: 'HOT-LIST' }, gsi1sk: { S: String(n) } },
        }),
      );
    await Promise.all([1, 2, 3].map(put));
    const query = () =>
      client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :v',
          ExpressionAttributeValues: { ':v': { S: 'HOT-LIST' } },
        }),
      );
    const results = await settle(Array.from({ length: 301 }, query));
    expect(results.ok).toBe(300);
    expect((results.errors[0] as ThrottlingException).throttlingReasons).toEqual([
      { reason: 'IndexReadKeyRangeThroughputExceeded', resource: `${tableArn}/index/gsi1` },
    ]);
  });

  it('a provisioned table answers ProvisionedThroughputExceededException with ThrottlingReasons', async () => {
    const provisioned = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, {
      perKeyLimits: LIMITS,
      now: () => clock,
      capacityMode: 'provisioned',
    });
    const other = clientOf(provisioned.endpoint);
    try {
      const send = () =>
        other.send(
          new UpdateItemCommand({
            TableName: table,
            Key: pk('prov'),
            UpdateExpression: 'ADD clicks :one',
            ExpressionAttributeValues: { ':one': { N: '1' } },
          }),
        );
      const results = await settle(Array.from({ length: 51 }, send));
      const error = results.errors[0] as ProvisionedThroughputExceededException;
      expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
      expect(error.ThrottlingReasons).toEqual([{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn }]);
    } finally {
      other.destroy();
      await provisioned.stop();
    }
  });

  it('a caller that did not ask for ConsumedCapacity does not get it', async () => {
    const out = await click('quiet');
    expect(out.ConsumedCapacity).toBeUndefined();
    const asked = await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: pk('quiet'),
        UpdateExpression: 'ADD clicks :one',
        ExpressionAttributeValues: { ':one': { N: '1' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(asked.ConsumedCapacity?.CapacityUnits).toBe(1);
  });

  it('a large answer (DynamoDB Local sends it chunked) comes through measured and intact', async () => {
    const recording = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, {
      recordCapacity: true,
      perKeyLimits: { writeUnitsPerSecond: 10_000, readUnitsPerSecond: 10_000 },
    });
    const other = clientOf(recording.endpoint);
    try {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          other.send(
            new PutItemCommand({
              TableName: table,
              Item: {
                pk: { S: 'LINK#many' },
                sk: { S: `ITEM#${String(i).padStart(2, '0')}` },
                blob: { S: 'y'.repeat(4_000) },
              },
            }),
          ),
        ),
      );
      recording.take();
      const out = await other.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'LINK#many' } },
        }),
      );
      expect(out.Items).toHaveLength(40);
      expect(out.ConsumedCapacity).toBeUndefined();
      const [call] = recording.take();
      expect(call).toMatchObject({ operation: 'Query', reported: true });
      expect(call!.read).toBeGreaterThan(10); // 40 items of 4 KB, eventually consistent
    } finally {
      other.destroy();
      await recording.stop();
    }
  });
});
