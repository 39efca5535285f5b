import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import {
  ALL_TRACKED,
  applyClickCounters,
  CHECKPOINT_HORIZON_MS,
  COUNTS_FROM,
  settleLinkDay,
  checkpointAttribute,
  padSequence,
  readCheckpoint,
  tallyClicks,
  type CounterStreamRecord,
} from '@shared/clicks/link-counters';
import { insertLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { LAKE_ONLY_PARTITION_PREFIX } from '@shared/events/stream-sink';
import { TEST_ORIGIN } from '@test/support/test-origin';

let tenant: BootstrapResult;
/** The clock of the hourly-count tests (the settled horizon is measured from it). */
const NOW = new Date('2026-11-26T12:00:00.000Z');
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
});

const newLink = async () => {
  const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
  return insertLink(
    { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
    {},
    TEST_ORIGIN,
  );
};
const click = (linkId: string, trafficType: 'human' | 'bot', timestamp: string) =>
  JSON.stringify({ eventType: 'click', linkId, trafficType, timestamp, eventId: `${Math.random()}` }) + '\n';
/** Records of one shard with sequence numbers from `first` on (Kinesis's are long decimal strings). */
const onShard = (shardId: string, first: bigint, lines: string[]): CounterStreamRecord[] =>
  lines.map((data, i) => ({
    shardId,
    sequenceNumber: String(
      49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136_588_898n + first + BigInt(i),
    ),
    data,
  }));
const linkItem = async (id: string) =>
  (await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.link(id), ConsistentRead: true })))
    .Item;
const counters = async (id: string) => {
  const link = await linkRepository.findById(id, true);
  return {
    clicks: link?.clicks,
    botClicks: link?.botClicks,
    lastClicked: link?.lastClicked,
    lastBotClickedAt: link?.lastBotClickedAt,
  };
};

describe('click counters from the event stream (the consumer, against DynamoDB Local)', () => {
  it('adds a batch with one update per link, and counts a redelivered batch once', async () => {
    const [a, b] = [await newLink(), await newLink()];
    const batch = onShard('shardId-000000000001', 0n, [
      ...Array.from({ length: 40 }, (_, i) =>
        click(a.id, 'human', `2026-11-23T08:00:${String(i).padStart(2, '0')}.000Z`),
      ),
      ...Array.from({ length: 3 }, () => click(a.id, 'bot', '2026-11-23T08:00:05.000Z')),
      click(b.id, 'human', '2026-11-23T07:00:00.000Z'),
      JSON.stringify({
        eventType: 'launch_view_impression',
        linkId: a.id,
        trafficType: 'human',
        timestamp: '2026-11-23T09:00:00.000Z',
      }),
      'not json',
    ]);
    expect(tallyClicks(batch).map((t) => [t.linkId, t.humans, t.bots])).toEqual([
      [a.id, 40, 3],
      [b.id, 1, 0],
    ]);
    expect(await applyClickCounters(batch)).toEqual({
      links: 2,
      clicks: 44,
      applied: 2,
      alreadyApplied: 0,
      linksGone: 0,
    });
    expect(await counters(a.id)).toEqual({
      clicks: 40,
      botClicks: 3,
      lastClicked: '2026-11-23T08:00:39.000Z',
      lastBotClickedAt: '2026-11-23T08:00:05.000Z',
    });

    // The event source mapping's retry, or a replay of the same records: nothing moves.
    expect(await applyClickCounters(batch)).toEqual({
      links: 2,
      clicks: 0,
      applied: 0,
      alreadyApplied: 2,
      linksGone: 0,
    });
    expect(await counters(a.id)).toMatchObject({ clicks: 40, botClicks: 3 });
    expect(await counters(b.id)).toMatchObject({ clicks: 1 });
  });

  it('counts the rest when a retried batch was split differently (bisected), and keeps shards apart', async () => {
    const link = await newLink();
    const lines = Array.from({ length: 10 }, (_, i) => click(link.id, 'human', `2026-11-23T08:00:0${i}.000Z`));
    const records = onShard('shardId-000000000002', 100n, lines);
    await applyClickCounters(records.slice(0, 6));
    // Redelivered as one batch holding the counted six and four new ones: only the four count.
    expect(await applyClickCounters(records)).toMatchObject({ applied: 1, clicks: 4 });
    expect(await counters(link.id)).toMatchObject({ clicks: 10 });
    // Another shard's sequence numbers are its own (lower ones are not "already counted").
    await applyClickCounters(
      onShard('shardId-000000000003', 0n, [click(link.id, 'human', '2026-11-23T08:00:00.500Z')]),
    );
    const stored = await linkRepository.findById(link.id, true);
    expect(stored?.clicks).toBe(11);
    const raw = await linkItem(link.id);
    expect(readCheckpoint(raw?.[checkpointAttribute('shardId-000000000002')]).sequence).toBe(
      padSequence(records[9]!.sequenceNumber),
    );
  });

  it('never moves lastClicked back (a shard behind another delivers older clicks later)', async () => {
    const link = await newLink();
    await applyClickCounters(
      onShard('shardId-000000000004', 0n, [
        click(link.id, 'human', '2026-11-23T10:00:00.000Z'),
        click(link.id, 'bot', '2026-11-23T10:00:00.000Z'),
      ]),
    );
    await applyClickCounters(
      onShard('shardId-000000000005', 0n, [
        click(link.id, 'human', '2026-11-23T09:00:00.000Z'),
        click(link.id, 'bot', '2026-11-23T09:30:00.000Z'),
      ]),
    );
    expect(await counters(link.id)).toEqual({
      clicks: 2,
      botClicks: 2,
      lastClicked: '2026-11-23T10:00:00.000Z',
      lastBotClickedAt: '2026-11-23T10:00:00.000Z',
    });
  });

  it('skips lake-only records and links that no longer exist', async () => {
    const link = await newLink();
    const lakeOnly = onShard('shardId-000000000006', 0n, [click(link.id, 'human', '2026-11-23T08:00:00.000Z')]).map(
      (r) => ({ ...r, lakeOnly: true }),
    );
    expect(await applyClickCounters(lakeOnly)).toMatchObject({ links: 0, clicks: 0 });
    const gone = await newLink();
    await getDocumentClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.link(gone.id) }));
    expect(
      await applyClickCounters(
        onShard('shardId-000000000006', 10n, [click(gone.id, 'human', '2026-11-23T08:00:00.000Z')]),
      ),
    ).toMatchObject({ linksGone: 1, clicks: 0 });
    expect(await counters(link.id)).toMatchObject({ clicks: 0 });
  });

  it('the Lambda handler reads a Kinesis event (base64 data, shard from eventID, lake-only partition keys) and is idempotent', async () => {
    const { handler } = await import('../../lambdas/click-counters');
    const link = await newLink();
    const record = (sequence: string, data: string, partitionKey = 'a1b2c3d4e5f60718') => ({
      eventSource: 'aws:kinesis',
      eventID: `shardId-000000000007:${sequence}`,
      eventName: 'aws:kinesis:record',
      eventVersion: '1.0',
      invokeIdentityArn: 'arn:aws:iam::111111111111:role/x',
      awsRegion: 'us-east-1',
      eventSourceARN: 'arn:aws:kinesis:us-east-1:111111111111:stream/events',
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey,
        sequenceNumber: sequence,
        data: Buffer.from(data).toString('base64'),
        approximateArrivalTimestamp: 1795400000,
      },
    });
    const event = {
      Records: [
        record(
          '49590338271490256608559692538361571095921575989136588898',
          click(link.id, 'human', '2026-11-23T08:00:00.000Z'),
        ),
        record(
          '49590338271490256608559692538361571095921575989136588899',
          click(link.id, 'human', '2026-11-23T08:00:01.000Z'),
        ),
        record(
          '49590338271490256608559692538361571095921575989136588900',
          click(link.id, 'human', '2026-11-23T08:00:02.000Z'),
          `${LAKE_ONLY_PARTITION_PREFIX}ff`,
        ),
      ],
    };
    const context = {
      awsRequestId: 'req',
      functionName: 'click-counters',
      getRemainingTimeInMillis: () => 60_000,
    } as never;
    await handler(event, context);
    await handler(event, context);
    expect(await counters(link.id)).toMatchObject({ clicks: 2, lastClicked: '2026-11-23T08:00:01.000Z' });
  });

  it('orders sequence numbers up to the maximum length the Kinesis API allows (129 digits)', async () => {
    const link = await newLink();
    const at = (sequenceNumber: string, i: number): CounterStreamRecord => ({
      shardId: 'shardId-000000000008',
      sequenceNumber,
      data: click(link.id, 'human', `2026-11-23T08:00:0${String(i)}.000Z`),
    });
    // The largest 128-digit number, then the smallest and the largest 129-digit ones.
    const longest = '9'.repeat(129);
    expect(longest).toMatch(/^(0|([1-9]\d{0,128}))$/);
    await applyClickCounters([at('9'.repeat(128), 0)]);
    expect(await applyClickCounters([at(`1${'0'.repeat(128)}`, 1)])).toMatchObject({ applied: 1, clicks: 1 });
    expect(await applyClickCounters([at(longest, 2)])).toMatchObject({ applied: 1, clicks: 1 });
    expect(await applyClickCounters([at(longest, 2)])).toMatchObject({ alreadyApplied: 1, clicks: 0 });
    expect(await counters(link.id)).toMatchObject({ clicks: 3 });
    const raw = await linkItem(link.id);
    expect(readCheckpoint(raw?.[checkpointAttribute('shardId-000000000008')]).sequence).toBe(longest);
  });

  it('honours a checkpoint written at the former width (128 digits) and rewrites it', async () => {
    const link = await newLink();
    const records = onShard('shardId-000000000009', 0n, [
      click(link.id, 'human', '2026-11-23T08:00:00.000Z'),
      click(link.id, 'human', '2026-11-23T08:00:01.000Z'),
    ]);
    const attribute = checkpointAttribute('shardId-000000000009');
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(link.id),
        UpdateExpression: 'SET #cp = :legacy',
        ExpressionAttributeNames: { '#cp': attribute },
        ExpressionAttributeValues: { ':legacy': records[0]!.sequenceNumber.padStart(128, '0') },
      }),
    );
    // The first record was counted under the former format: only the second counts.
    expect(await applyClickCounters(records)).toMatchObject({ applied: 1, clicks: 1 });
    expect(await applyClickCounters(records)).toMatchObject({ alreadyApplied: 1 });
    const raw = await linkItem(link.id);
    expect(raw?.[attribute]).toMatch(new RegExp(`^${padSequence(records[1]!.sequenceNumber)}@`));
  });

  it('a link keeps the checkpoints of recent shards only: older ones are removed at the next count', async () => {
    const link = await newLink();
    const t0 = new Date('2026-11-01T00:00:00.000Z');
    const later = (ms: number) => new Date(t0.getTime() + ms);
    // Shard 10 counts, then is closed (resharded): its children 11 and 12 count later.
    await applyClickCounters(
      onShard('shardId-000000000010', 0n, [click(link.id, 'human', '2026-11-01T00:00:00.000Z')]),
      16,
      t0,
    );
    await applyClickCounters(
      onShard('shardId-000000000011', 0n, [click(link.id, 'human', '2026-11-01T01:00:00.000Z')]),
      16,
      later(3600_000),
    );
    let raw = await linkItem(link.id);
    expect(Object.keys(raw!).filter((k) => k.startsWith(checkpointAttribute('')))).toHaveLength(2);
    await applyClickCounters(
      onShard('shardId-000000000012', 0n, [click(link.id, 'human', '2026-12-02T00:00:00.000Z')]),
      16,
      later(CHECKPOINT_HORIZON_MS + 1),
    );
    raw = await linkItem(link.id);
    expect(
      Object.keys(raw!)
        .filter((k) => k.startsWith(checkpointAttribute('')))
        .sort(),
    ).toEqual([checkpointAttribute('shardId-000000000011'), checkpointAttribute('shardId-000000000012')]);
    expect(await counters(link.id)).toMatchObject({ clicks: 3 });
  });
  it('counts each eventId once per batch; settling a day replaces its live hours by the exact count (copies off, missed clicks on)', async () => {
    const link = await newLink();
    const line = (eventId: string, trafficType: 'human' | 'bot', timestamp: string) =>
      JSON.stringify({ eventType: 'click', linkId: link.id, trafficType, timestamp, eventId }) + '\n';
    const shard = 'shardId-000000000010';
    // A producer's retry in the same batch: e1 twice.
    await applyClickCounters(
      onShard(shard, 0n, [
        line('e1', 'human', '2026-11-24T08:10:00.000Z'),
        line('e1', 'human', '2026-11-24T08:10:00.000Z'),
        line('e2', 'human', '2026-11-24T09:00:00.000Z'),
        line('e3', 'bot', '2026-11-24T09:05:00.000Z'),
      ]),
      16,
      NOW,
    );
    expect(await counters(link.id)).toMatchObject({ clicks: 2, botClicks: 1 });
    expect(await linkItem(link.id)).toMatchObject({
      'lh#2026-11-24T08': 1,
      'lh#2026-11-24T09': 1,
      'lb#2026-11-24T09': 1,
      [COUNTS_FROM]: ALL_TRACKED,
    });
    // e2 again in a later batch (a spool replay, another sequence number): counted live twice.
    await applyClickCounters(onShard(shard, 10n, [line('e2', 'human', '2026-11-24T09:00:00.000Z')]), 16, NOW);
    expect(await counters(link.id)).toMatchObject({ clicks: 3 });
    // The lake's distinct count of the day's closed hours (before 10:00): e1, e2 and the bot e3.
    expect(await settleLinkDay(link.id, '2026-11-24', '2026-11-24T10:00:00.000Z', { humans: 2, bots: 1 }, NOW)).toBe(
      'settled',
    );
    expect(await counters(link.id)).toMatchObject({ clicks: 2, botClicks: 1 });
    const settled = await linkItem(link.id);
    expect(settled).toMatchObject({ 'sh#2026-11-24': 2, 'sb#2026-11-24': 1 });
    expect(Object.keys(settled ?? {}).filter((k) => /^l[hb]#2026-11-24/.test(k))).toEqual([]);
    expect(await settleLinkDay(link.id, '2026-11-24', '2026-11-24T10:00:00.000Z', { humans: 2, bots: 1 }, NOW)).toBe(
      'unchanged',
    );
    // An open hour stays live; a click the consumer never counted (the lake has it) is added.
    await applyClickCounters(onShard(shard, 20n, [line('e4', 'human', '2026-11-24T11:00:00.000Z')]), 16, NOW);
    expect(await settleLinkDay(link.id, '2026-11-24', '2026-11-24T11:00:00.000Z', { humans: 3, bots: 1 }, NOW)).toBe(
      'settled',
    );
    expect(await counters(link.id)).toMatchObject({ clicks: 4, botClicks: 1 });
    expect(await linkItem(link.id)).toMatchObject({ 'sh#2026-11-24': 3, 'lh#2026-11-24T11': 1 });
    // The hour closes and the lake has e4 once: the live hour is folded in, the total unchanged.
    expect(await settleLinkDay(link.id, '2026-11-24', '2026-11-25T00:00:00.000Z', { humans: 4, bots: 1 }, NOW)).toBe(
      'settled',
    );
    expect(await counters(link.id)).toMatchObject({ clicks: 4, botClicks: 1 });
    expect(await linkItem(link.id)).not.toHaveProperty('lh#2026-11-24T11');
  });

  it('settles only days whose every click was counted per hour, within the settled horizon', async () => {
    const link = await newLink();
    // A link counted before the hourly counts existed: its first hourly count is on the 24th at 08.
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(link.id),
        UpdateExpression: 'SET clicks = :n',
        ExpressionAttributeValues: { ':n': 5 },
      }),
    );
    await applyClickCounters(
      onShard('shardId-000000000011', 0n, [click(link.id, 'human', '2026-11-24T08:00:00.000Z')]),
      16,
      NOW,
    );
    expect(await linkItem(link.id)).toMatchObject({ clicks: 6, [COUNTS_FROM]: '2026-11-24T08' });
    expect(await settleLinkDay(link.id, '2026-11-24', '2026-11-25T00:00:00.000Z', { humans: 1, bots: 0 }, NOW)).toBe(
      'not_tracked',
    );
    await applyClickCounters(
      onShard('shardId-000000000011', 1n, [click(link.id, 'human', '2026-11-25T08:00:00.000Z')]),
      16,
      NOW,
    );
    expect(await settleLinkDay(link.id, '2026-11-25', '2026-11-26T00:00:00.000Z', { humans: 1, bots: 0 }, NOW)).toBe(
      'settled',
    );
    expect(await counters(link.id)).toMatchObject({ clicks: 7 });
    expect(await settleLinkDay(link.id, '2026-10-01', '2026-10-02T00:00:00.000Z', { humans: 9, bots: 0 }, NOW)).toBe(
      'too_old',
    );
  });
});
