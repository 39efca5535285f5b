import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '@shared/db/batch-write';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
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

/** Every published event of a workspace, by time, kept 30 days so `webhooks replay` can re-send. */
export const eventLogRepository = {
  async append(events: OutboundEvent[], now = Date.now()): Promise<void> {
    const ttl = Math.floor(now / 1000) + EVENT_LOG_TTL_S;
    await writeAll(
      events.map((event) => ({
        ...keys.eventLog(event.workspaceId, event.occurredAt, event.id),
        type: 'EVENTLOG',
        event,
        ttl,
      })),
    );
  },

  /** Events of the workspace that occurred at or after `since`, oldest first. */
  async *since(workspaceId: string, since: string): AsyncGenerator<OutboundEvent[]> {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND sk >= :since',
          ExpressionAttributeValues: { ':pk': keys.eventLogOf(workspaceId).pk, ':since': since },
          ExclusiveStartKey: start,
        }),
      );
      yield (out.Items ?? []).map((item) => item.event as OutboundEvent);
      start = out.LastEvaluatedKey;
    } while (start);
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
