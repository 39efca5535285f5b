import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { withIdempotency } from '@shared/idempotency/idempotency';
import { sha256Hex } from '@shared/util/hash';

const request = (key: string) => ({ workspaceId: 'ws_idem', scope: 'links-bulk-create', key, body: { links: [key] } });
const stored = async (key: string) =>
  (
    await getDocumentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.idempotency('ws_idem', 'links-bulk-create', sha256Hex(key)),
        ConsistentRead: true,
      }),
    )
  ).Item!;

/** A reply replayed through a second call with the same key and body, and how it was stored. */
const roundTrip = async (key: string, data: unknown) => {
  let runs = 0;
  const run = () => {
    runs++;
    return Promise.resolve({ status: 200, data });
  };
  const first = await withIdempotency(request(key), run);
  const replay = await withIdempotency(request(key), run);
  return { first, replay, runs, item: await stored(key) };
};

describe('idempotent replies as stored in DynamoDB Local', () => {
  it('keeps a small reply as JSON', async () => {
    const { replay, runs, item } = await roundTrip('small', [{ success: true, data: { id: 'lnk_1' } }]);
    expect(runs).toBe(1);
    expect(replay).toMatchObject({
      status: 200,
      data: [{ success: true, data: { id: 'lnk_1' } }],
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(typeof item.responseJson).toBe('string');
  });

  it('gzips a large reply that compresses into one item', async () => {
    const data = Array.from({ length: 100 }, (_, i) => ({
      success: true,
      data: { id: `lnk_${i}`, url: `https://example.com/${'a'.repeat(2000)}` },
    }));
    const { replay, runs, item } = await roundTrip('gzip', data);
    expect(runs).toBe(1);
    expect(replay.data).toEqual(data);
    expect(item.responseJson).toBeUndefined();
    expect(item.responseGzip).toBeInstanceOf(Uint8Array);
  });

  it('splits an incompressible reply beyond one item into parts and replays it whole', async () => {
    // ~700 KB of random base64: gzip cannot bring it under DynamoDB's 400 KB item limit.
    const data = Array.from({ length: 100 }, (_, i) => ({
      success: true,
      data: { id: `lnk_${i}`, url: `https://example.com/${randomBytes(5200).toString('base64')}` },
    }));
    expect(Buffer.byteLength(JSON.stringify(data))).toBeGreaterThan(600 * 1024);
    const { replay, runs, item } = await roundTrip('parts', data);
    expect(runs).toBe(1);
    expect(item.responseParts).toBeGreaterThanOrEqual(2);
    expect(replay.data).toEqual(data);
  });
});
