import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { EVENT_LOG_SHARDS, keys } from '@shared/db/keys';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import { eventLogRepository } from '@shared/outbound/event-log-repository';

/** The outbound event log, sharded: writes dealt over the shards, reads gathered in order. */
const event = (workspaceId: string, n: number): OutboundEvent =>
  ({
    id: `evt_${String(n).padStart(4, '0')}`,
    type: 'customer_event.received',
    occurredAt: new Date(Date.UTC(2026, 10, 23, 8, 0, 0) + n * 1000).toISOString(),
    workspaceId,
    data: { n },
  }) as unknown as OutboundEvent;

const itemsOf = async (pk: string) =>
  (
    await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    )
  ).Items ?? [];

const readAll = async (workspaceId: string, since: string, pageSize?: number) => {
  const pages: OutboundEvent[][] = [];
  for await (const page of eventLogRepository.since(workspaceId, since, pageSize)) pages.push(page);
  return pages;
};

describe('outbound event log shards', () => {
  it('a batch is dealt evenly over the shards; no item under the key of before', async () => {
    const ws = 'ws_log_even';
    await eventLogRepository.append(Array.from({ length: 2 * EVENT_LOG_SHARDS }, (_, i) => event(ws, i)));
    const counts = await Promise.all(
      Array.from({ length: EVENT_LOG_SHARDS }, async (_, shard) => (await itemsOf(`EVENTLOG#${ws}#${shard}`)).length),
    );
    expect(counts).toEqual(Array.from({ length: EVENT_LOG_SHARDS }, () => 2));
    expect(await itemsOf(`EVENTLOG#${ws}`)).toEqual([]);
  });

  it('reads gather every shard and the key of before sharding, oldest first, each event once, in pages', async () => {
    const ws = 'ws_log_read';
    const events = Array.from({ length: 250 }, (_, i) => event(ws, i));
    // Odd events logged by this code, in batches as the publisher logs them.
    const odd = events.filter((_, i) => i % 2 === 1);
    for (let i = 0; i < odd.length; i += 100) await eventLogRepository.append(odd.slice(i, i + 100));
    // Even events as the log held them before sharding: one key per workspace.
    for (const e of events.filter((_, i) => i % 2 === 0))
      await getDocumentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: { pk: `EVENTLOG#${ws}`, sk: `${e.occurredAt}#${e.id}`, type: 'EVENTLOG', event: e },
        }),
      );
    // One event logged again by another batch (a bisected retry): on another shard, same sort key.
    const again = events[7]!;
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.eventLog(ws, again.occurredAt, again.id, 3), type: 'EVENTLOG', event: again },
      }),
    );
    const pages = await readAll(ws, events[0]!.occurredAt, 100);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(pages.flat().map((e) => e.id)).toEqual(events.map((e) => e.id));
    // From a time on: only what occurred at or after it.
    expect((await readAll(ws, events[200]!.occurredAt)).flat().map((e) => e.id)).toEqual(
      events.slice(200).map((e) => e.id),
    );
    // Another workspace's log is not read.
    expect(await readAll('ws_log_none', events[0]!.occurredAt)).toEqual([]);
  });
});
