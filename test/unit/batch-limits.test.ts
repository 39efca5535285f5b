import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchWrite, writeRequestBytes, writeRequestItemBytes, type WriteRequest } from '@shared/db/batch-write';
import { batchRecords, putRecordBytes } from '@shared/events/stream-sink';
import { BATCH_WRITE_ITEM_LIMITS, EntryTooLarge, PUT_RECORDS_LIMITS } from '@shared/util/byte-batches';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';

const MiB = 1024 * 1024;

describe('Kinesis PutRecords through the one batch helper: 500 records, 5 MiB per call, 1 MiB per record', () => {
  /** A record of exactly `bytes`, its 16-character partition key included. */
  const record = (bytes: number, key = 'k'.repeat(16)) => ({
    data: new Uint8Array(bytes - key.length),
    partitionKey: key,
  });

  it('counts the partition key with the data, and fills a call to exactly 5 MiB and no further', () => {
    expect(putRecordBytes(record(1000))).toBe(1000);
    expect(putRecordBytes({ data: new Uint8Array(10), partitionKey: 'é' })).toBe(12);
    const full = Array.from({ length: 5 }, () => record(MiB));
    expect(batchRecords(full).map((b) => b.length)).toEqual([5]);
    expect(batchRecords([...full, record(17)]).map((b) => b.length)).toEqual([5, 1]);
    // A first record 16 bytes short leaves room for a 16-byte record, and not for a 17-byte one.
    const almost = [record(MiB - 16), ...full.slice(1)];
    expect(batchRecords([...almost, record(16)]).map((b) => b.length)).toEqual([6]);
    expect(batchRecords([...almost, record(17)]).map((b) => b.length)).toEqual([5, 1]);
  });

  it('cuts by count at 500, and refuses a record over 1 MiB before any call', () => {
    expect(batchRecords(Array.from({ length: 1001 }, () => record(100))).map((b) => b.length)).toEqual([500, 500, 1]);
    expect(() => batchRecords([record(MiB + 1)])).toThrow(EntryTooLarge);
    expect(() => batchRecords([record(MiB + 1)])).toThrow(
      `Kinesis PutRecords takes entries of at most ${String(PUT_RECORDS_LIMITS.maxEntryBytes)} bytes`,
    );
  });
});

describe('DynamoDB BatchWriteItem through the one batch helper: 25 requests, 16 MB per call, 400 KB per item', () => {
  const dynamo = awsLoopback();
  const client = () =>
    DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint: dynamo.endpoint,
        credentials: loopbackCredentials,
        maxAttempts: 1,
      }),
    );
  const bodies = () =>
    dynamo.seen.map(
      (r) => JSON.parse(r.body) as { RequestItems: { t: Array<{ PutRequest: { Item: { pk: { S: string } } } }> } },
    );
  /**
   * An item of about 390 KB stored but 1.3 MB on the wire: a list of one-digit numbers counts 3
   * bytes per element in DynamoDB's item size and 10 in its JSON (`{"N":"1"},`).
   */
  const wideItem = (i: number): WriteRequest => ({
    PutRequest: { Item: { pk: `P#${String(i)}`, sk: 'S', nums: Array.from({ length: 130_000 }, () => 1) } },
  });

  it('measures an item by its stored size against 400 KB and by its JSON against the call', () => {
    const wide = wideItem(0);
    expect(writeRequestItemBytes(wide)).toBeLessThan(400 * 1024);
    expect(writeRequestItemBytes(wide)).toBeGreaterThan(390_000);
    expect(writeRequestBytes(wide)).toBeGreaterThan(1_300_000);
    expect(writeRequestItemBytes({ PutRequest: { Item: { pk: 'ab', n: 'é' } } })).toBe(2 + 2 + 1 + 2);
  });

  it('cuts wide items into calls under 16 MB on the wire (count alone would send 13 in one), each call within the limits', async () => {
    dynamo.seen.length = 0;
    dynamo.reply = { status: 200, json: { UnprocessedItems: {} } };
    const requests = Array.from({ length: 13 }, (_, i) => wideItem(i));
    const { calls } = await batchWrite(requests, { client: client(), table: 't', sleep: async () => {} });
    expect(calls).toBe(2);
    for (const seen of dynamo.seen) expect(Buffer.byteLength(seen.body)).toBeLessThanOrEqual(16 * 1000 * 1000);
    const sizes = bodies().map((b) => b.RequestItems.t.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(13);
    expect(Math.max(...sizes)).toBe(Math.floor(BATCH_WRITE_ITEM_LIMITS.maxBytes / writeRequestBytes(wideItem(0))));
    expect(bodies().flatMap((b) => b.RequestItems.t.map((r) => r.PutRequest.Item.pk.S))).toEqual(
      requests.map((_, i) => `P#${String(i)}`),
    );
  });

  it('cuts small items by count at 25 and resends only the unprocessed ones', async () => {
    dynamo.seen.length = 0;
    const small = Array.from({ length: 30 }, (_, i) => ({ PutRequest: { Item: { pk: `P#${String(i)}`, sk: 'S' } } }));
    dynamo.reply = {
      status: 200,
      json: { UnprocessedItems: { t: [{ PutRequest: { Item: { pk: { S: 'P#7' }, sk: { S: 'S' } } } }] } },
    };
    const sleeps: number[] = [];
    let written = 0;
    const out = await batchWrite(small, {
      client: client(),
      table: 't',
      sleep: (ms) => {
        sleeps.push(ms);
        dynamo.reply = { status: 200, json: { UnprocessedItems: {} } };
        return Promise.resolve();
      },
      onWritten: (n) => (written += n),
    });
    expect(bodies().map((b) => b.RequestItems.t.map((r) => r.PutRequest.Item.pk.S).length)).toEqual([25, 1, 5]);
    expect(bodies()[1]!.RequestItems.t[0]!.PutRequest.Item.pk.S).toBe('P#7');
    expect({ ...out, sleeps, written }).toEqual({ calls: 3, retries: 1, sleeps: [50], written: 30 });
  });

  it('refuses an item over 400 KB stored before any call, naming the limit', async () => {
    dynamo.seen.length = 0;
    const big: WriteRequest = { PutRequest: { Item: { pk: 'P#big', sk: 'S', blob: 'x'.repeat(400 * 1024) } } };
    await expect(batchWrite([wideItem(1), big], { client: client(), table: 't' })).rejects.toThrow(
      /DynamoDB BatchWriteItem takes entries of at most 409600 bytes; this one has 4096\d\d/,
    );
    expect(dynamo.seen).toEqual([]);
  });
});
