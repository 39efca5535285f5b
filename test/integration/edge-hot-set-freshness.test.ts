import { type CloudFrontKeyValueStoreClient, UpdateKeysCommand } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, type _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BootstrapResult } from '@shared/admin/bootstrap';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import { type CounterStreamRecord } from '@shared/clicks/link-counters';
import { tableName } from '@shared/db/dynamo-client';
import { parseHotEntry } from '@shared/edge/hot-links/edge-answer';
import { readHotSetItem } from '@shared/edge/hot-links/hot-candidates';
import { HOT_MIN_RECENT_CLICKS } from '@shared/edge/hot-links/hot-set';
import { invalidateHotLinks } from '@shared/edge/hot-links/invalidate-hot-links';
import { createHotSetWriter } from '@shared/edge/hot-links/kvs-writer';
import { refreshHotSet } from '@shared/edge/hot-links/refresh-hot-set';
import { archiveLink, patchLink } from '@shared/links/patch-link';
import { ensureTableStream } from '@shared/local/local-outbound';
import { createTableStreamReader, type TableStreamReader } from '@shared/local/local-table-stream';
import { localKvsClient, type LocalKvs } from '@shared/local/local-kvs-server';
import {
  type HotLinksFixture,
  insertShortLink,
  setLiveHumanClicks,
  startHotLinksFixture,
} from '@test/support/hot-links';
import { TEST_ORIGIN } from '@test/support/test-origin';

let fixture: HotLinksFixture;
let tenant: BootstrapResult;
let kvs: LocalKvs;
let client: CloudFrontKeyValueStoreClient;
let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let reader: TableStreamReader;
/** Every record the table's stream handed on since the reader started. */
const streamed: StreamRecord[] = [];

beforeAll(async () => {
  fixture = await startHotLinksFixture();
  ({ tenant, kvs, client } = fixture);
  const local = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  dynamo = new DynamoDBClient({ ...local, endpoint: process.env.DYNAMODB_ENDPOINT });
  streams = new DynamoDBStreamsClient({ ...local, endpoint: process.env.DYNAMODB_ENDPOINT });
  const streamArn = await ensureTableStream(dynamo, tableName());
  reader = createTableStreamReader({
    streams,
    streamArn,
    handle: (records) => {
      streamed.push(...records);
      return Promise.resolve(undefined);
    },
  });
  await reader.start();
});
afterAll(async () => {
  dynamo.destroy();
  streams.destroy();
  await fixture.stop();
});

const newLink = (url: string) => insertShortLink(tenant, url);

const setLiveClicks = setLiveHumanClicks;

const keyOf = (link: { domain: string; key: string }) => `${link.domain.toLowerCase()}/${link.key}`;

const isLinkRecord = (record: StreamRecord, linkId: string) => record.dynamodb?.Keys?.pk?.S === `LINK#${linkId}`;

/**
 * The table stream's next records, read as the event source mapping would hand them to the
 * writer, until one of the link's LINK item is among them (DynamoDB Local's stream is read by
 * polling; each poll is one pass over the shards).
 */
const nextBatchWith = async (linkId: string): Promise<DynamoDBRecord[]> => {
  for (let pass = 0; pass < 200; pass++) {
    const records = streamed.splice(0);
    if (records.some((r) => isLinkRecord(r, linkId) && r.dynamodb?.Keys?.sk?.S === 'LINK'))
      return records as unknown as DynamoDBRecord[];
    streamed.unshift(...records);
    await reader.poll();
  }
  throw new Error(`no stream record of link ${linkId}`);
};

describe('edge hot set: invalidation from the table stream (DynamoDB Local stream, loopback KeyValueStore)', () => {
  it("a PATCHed hot link's entry is replaced and an archived one removed by the stream batch, not waiting for the refresh", async () => {
    const now = new Date();
    const writer = createHotSetWriter(client, kvs.arn);
    const hot = await newLink('https://example.com/fresh-before');
    const other = await newLink('https://example.com/other');
    await setLiveClicks(hot.id, now, 5_000);
    await setLiveClicks(other.id, now, 5_000);
    await refreshHotSet(writer, [hot.id, other.id], now);
    expect(parseHotEntry(kvs.entries.get(keyOf(hot)) ?? '')?.l).toBe('https://example.com/fresh-before');
    const otherEntry = kvs.entries.get(keyOf(other));
    expect(otherEntry).toBeDefined();

    // A counter-only update of a hot link: the batch reads nothing of the store, writes nothing.
    streamed.splice(0);
    await setLiveClicks(hot.id, now, 6_000);
    const countedOnly = await nextBatchWith(hot.id);
    const requestsBefore = kvs.requests.length;
    expect(await invalidateHotLinks(writer, countedOnly, now)).toMatchObject({ changed: 0, replanned: 0, puts: 0 });
    expect(kvs.requests.length).toBe(requestsBefore);

    await patchLink(tenant.workspaceId, 'SHORTLINK', hot.id, { url: 'https://example.com/fresh-after' }, TEST_ORIGIN);
    const patched = await invalidateHotLinks(writer, await nextBatchWith(hot.id), now);
    expect(patched).toMatchObject({ changed: 1, replanned: 1, puts: 1, deletes: 0 });
    expect(parseHotEntry(kvs.entries.get(keyOf(hot)) ?? '')?.l).toBe('https://example.com/fresh-after');

    await archiveLink(tenant.workspaceId, 'SHORTLINK', hot.id, TEST_ORIGIN);
    const archived = await invalidateHotLinks(writer, await nextBatchWith(hot.id), now);
    expect(archived).toMatchObject({ replanned: 1, puts: 0, deletes: 1 });
    expect(kvs.entries.has(keyOf(hot))).toBe(false);
    // The other hot link's entry is untouched.
    expect(kvs.entries.get(keyOf(other))).toBe(otherEntry);
  });

  it('a write that loses to another writer (409 on a stale ETag) is retried once from a fresh ETag', async () => {
    const now = new Date();
    const racing = localKvsClient(kvs);
    const raced = localKvsClient(kvs);
    let races = 0;
    // Just before this client's first UpdateKeys, another writer updates the store: its ETag is stale.
    raced.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { IfMatch?: string };
        if (input.IfMatch !== undefined && races === 0) {
          races++;
          await racing.send(
            new UpdateKeysCommand({ KvsARN: kvs.arn, IfMatch: kvs.etag(), Puts: [{ Key: 'race/x', Value: '{}' }] }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'raceAnotherWriter' },
    );
    const link = await newLink('https://example.com/raced');
    await setLiveClicks(link.id, now, 5_000);
    const conflictsBefore = kvs.requests.filter((r) => r.method === 'POST').length;
    const result = await refreshHotSet(createHotSetWriter(raced, kvs.arn), [link.id], now);
    expect(races).toBe(1);
    // The racing write, the refused one and the retried one.
    expect(kvs.requests.filter((r) => r.method === 'POST').length - conflictsBefore).toBe(3);
    expect(result.puts).toBeGreaterThanOrEqual(1);
    expect(kvs.entries.has(keyOf(link))).toBe(true);
    racing.destroy();
    raced.destroy();
  });
});

describe('edge hot set: discovery of newly hot links by the counter consumer', () => {
  const clickLines = (linkId: string, at: Date, count: number, shardId: string, first: number): CounterStreamRecord[] =>
    Array.from({ length: count }, (_, i) => ({
      shardId,
      sequenceNumber: String(
        49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136_588_898n + BigInt(first + i),
      ),
      data: JSON.stringify({
        eventType: 'click',
        linkId,
        trafficType: 'human',
        timestamp: at.toISOString(),
        eventId: `${linkId}-${String(first + i)}`,
      }),
    }));

  it('nominates a link once its live count crosses the threshold (one write), and the refresh takes it in', async () => {
    const now = new Date();
    const writer = createHotSetWriter(client, kvs.arn);
    const rising = await newLink('https://example.com/rising');
    const calm = await newLink('https://example.com/calm');

    // Under the threshold: nothing nominated.
    await countClickBatch(clickLines(rising.id, now, HOT_MIN_RECENT_CLICKS - 1, 'shardId-1', 0), true, now);
    expect((await readHotSetItem()).candidates).not.toContain(rising.id);
    // The batch that carries it over the threshold nominates it; a calm link in the same batch is not.
    await countClickBatch(
      [...clickLines(rising.id, now, 5, 'shardId-1', 1_000), ...clickLines(calm.id, now, 3, 'shardId-1', 2_000)],
      true,
      now,
    );
    expect((await readHotSetItem()).candidates).toEqual([rising.id]);
    // Already over it: not nominated again.
    await countClickBatch(clickLines(rising.id, now, 5, 'shardId-1', 3_000), true, now);

    // With the feature off the consumer writes nothing of the hot set.
    const offLink = await newLink('https://example.com/off');
    await countClickBatch(clickLines(offLink.id, now, HOT_MIN_RECENT_CLICKS + 5, 'shardId-1', 4_000), false, now);
    expect((await readHotSetItem()).candidates).toEqual([rising.id]);

    // The refresh, nominated nothing in its event, takes the candidate in, consumes it and records itself.
    const result = await refreshHotSet(writer, [], now);
    expect(result.hot).toBeGreaterThanOrEqual(1);
    expect(parseHotEntry(kvs.entries.get(keyOf(rising)) ?? '')?.i).toBe(rising.id);
    expect(kvs.entries.has(keyOf(offLink))).toBe(false);
    const item = await readHotSetItem();
    expect(item.candidates).toEqual([]);
    expect(item.lastRefresh).toMatchObject({ at: now.toISOString(), hot: result.hot, puts: result.puts });
  });
});
