import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BootstrapResult } from '@shared/admin/bootstrap';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { parseHotEntry } from '@shared/edge/hot-links/edge-answer';
import { createHotSetWriter } from '@shared/edge/hot-links/kvs-writer';
import { refreshHotSet } from '@shared/edge/hot-links/refresh-hot-set';
import { type LocalKvs } from '@shared/local/local-kvs-server';
import {
  type HotLinksFixture,
  insertShortLink,
  setLiveHumanClicks,
  startHotLinksFixture,
} from '@test/support/hot-links';

let fixture: HotLinksFixture;
let tenant: BootstrapResult;
let kvs: LocalKvs;
let client: CloudFrontKeyValueStoreClient;

beforeAll(async () => {
  fixture = await startHotLinksFixture();
  ({ tenant, kvs, client } = fixture);
});
afterAll(() => fixture.stop());

const newLink = (url: string) => insertShortLink(tenant, url);

const setLiveClicks = setLiveHumanClicks;

const setOnLink = (linkId: string, attribute: string, value: unknown) =>
  getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.link(linkId),
      UpdateExpression: 'SET #a = :v, updatedAt = :u',
      ExpressionAttributeNames: { '#a': attribute },
      ExpressionAttributeValues: { ':v': value, ':u': new Date().toISOString() },
    }),
  );

describe('edge hot set refreshed from the link counters (DynamoDB Local, loopback KeyValueStore)', () => {
  it('puts hot eligible links, refreshes a changed one and drops an archived or cold one', async () => {
    const now = new Date();
    const writer = createHotSetWriter(client, kvs.arn);
    const hot = await newLink('https://example.com/hot');
    const cold = await newLink('https://example.com/cold');
    const changed = await newLink('https://example.com/before');
    await setLiveClicks(hot.id, now, 5_000);
    await setLiveClicks(cold.id, now, 3);
    await setLiveClicks(changed.id, now, 4_000);

    const first = await refreshHotSet(writer, [hot.id, cold.id, changed.id], now);
    expect(first).toMatchObject({ candidates: 3, hot: 2, puts: 2, deletes: 0 });
    const keyOf = (link: { domain: string; key: string }) => `${link.domain.toLowerCase()}/${link.key}`;
    expect([...kvs.entries.keys()].sort()).toEqual([keyOf(hot), keyOf(changed)].sort());
    expect(parseHotEntry(kvs.entries.get(keyOf(hot)) ?? '')).toMatchObject({
      l: 'https://example.com/hot',
      s: 302,
      i: hot.id,
    });

    // No nomination: the links already in the store are re-read from their entries.
    await setOnLink(changed.id, 'url', 'https://example.com/after');
    await setOnLink(hot.id, 'archived', true);
    const second = await refreshHotSet(writer, [], now);
    expect(second).toMatchObject({ candidates: 2, hot: 1, puts: 1, deletes: 1 });
    expect([...kvs.entries.keys()]).toEqual([keyOf(changed)]);
    expect(parseHotEntry(kvs.entries.get(keyOf(changed)) ?? '')?.l).toBe('https://example.com/after');

    await setLiveClicks(changed.id, now, 0);
    const third = await refreshHotSet(writer, [], now);
    expect(third).toMatchObject({ hot: 0, deletes: 1 });
    expect(kvs.entries.size).toBe(0);
  });
});
