import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '@shared/db/batch-write';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { eventLogShardOf, keys } from '@shared/db/keys';
import type { OutboundEvent } from './event-catalogue';

/** How long published events stay replayable. */
export const EVENT_LOG_TTL_S = 30 * 24 * 3600;
const REPLAY_TTL_S = 24 * 3600;

/** Puts the items in BatchWriteItem calls cut by count and bytes (shared/db/batch-write.ts); unprocessed ones resent. */
const writeAll = async (items: Array<Record<string, unknown>>) => {
  await batchWrite(
    items.map((Item) => ({ PutRequest: { Item } })),
    {
      maxAttempts: 5,
      delayMs: (resend) => 50 * 2 ** resend,
      exhausted: () => new Error('Event log write kept coming back unprocessed'),
    },
  );
};

interface LoggedEvent {
  sk: string;
  event: OutboundEvent;
}

/** One partition of the log from `since` on, item by item in sort-key order (paged Queries). */
async function* partitionSince(pk: string, since: string): AsyncGenerator<LoggedEvent, undefined> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        ExpressionAttributeValues: { ':pk': pk, ':since': since },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) yield { sk: String(item.sk), event: item.event as OutboundEvent };
    start = out.LastEvaluatedKey;
  } while (start);
}

/** Every published event of a workspace, by time, kept 30 days so `webhooks replay` can re-send. */
export const eventLogRepository = {
  /**
   * Logs a batch: its events are dealt over the log's shards in turn from an offset that a hash
   * of the batch's first event id picks, so each shard takes an even share of any workspace's
   * events (never a hot key) and a retried batch writes the same items again. An event logged
   * twice by different batches (a bisected retry) sits on two shards with one sort key: reads
   * give it once.
   */
  async append(events: OutboundEvent[], now = Date.now()): Promise<void> {
    const ttl = Math.floor(now / 1000) + EVENT_LOG_TTL_S;
    const offset = eventLogShardOf(events[0]?.id ?? '');
    await writeAll(
      events.map((event, i) => ({
        ...keys.eventLog(event.workspaceId, event.occurredAt, event.id, offset + i),
        type: 'EVENTLOG',
        event,
        ttl,
      })),
    );
  },

  /**
   * Events of the workspace that occurred at or after `since`, oldest first, in pages of up to
   * `pageSize`: one paged Query per partition key of the log (its shards and the key of before
   * sharding), merged by sort key (`occurredAt#eventId`).
   */
  async *since(workspaceId: string, since: string, pageSize = 100): AsyncGenerator<OutboundEvent[]> {
    const sources = keys.eventLogPartitions(workspaceId).map((pk) => partitionSince(pk, since));
    const heads = await Promise.all(sources.map(async (source) => (await source.next()).value));
    let page: OutboundEvent[] = [];
    let lastSk: string | undefined;
    for (;;) {
      let first: number | undefined;
      heads.forEach((head, i) => {
        const best = first === undefined ? undefined : heads[first];
        if (head && (!best || head.sk < best.sk)) first = i;
      });
      const head = first === undefined ? undefined : heads[first];
      const source = first === undefined ? undefined : sources[first];
      if (first === undefined || !head || !source) break;
      // The same event under the key of before sharding and under its shard (re-put): once.
      if (head.sk !== lastSk) page.push(head.event);
      lastSk = head.sk;
      heads[first] = (await source.next()).value;
      if (page.length >= pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  },
};

/**
 * `webhooks replay`: one REPLAY item per event and endpoint; the table's stream enqueues it for
 * that endpoint only (the admin CLI needs nothing but the table, deployed and locally).
 * `requestedAt` makes a second replay of the same event a change, so it is sent again.
 */
export const replayRepository = {
  async request(endpointId: string, events: OutboundEvent[], now = new Date()): Promise<void> {
    const ttl = Math.floor(now.getTime() / 1000) + REPLAY_TTL_S;
    await writeAll(
      events.map((event) => ({
        ...keys.webhookReplay(endpointId, event.id),
        type: 'REPLAY',
        endpointId,
        event,
        requestedAt: now.toISOString(),
        ttl,
      })),
    );
  },
};
