import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { OutboundEvent } from './event-catalogue';

const OUTBOX_TTL_S = 24 * 3600;

/**
 * Attribution and customer events reach the outbound path through the table: once the event is
 * committed (it reached the event sink), an OUTBOX item is written, and the table's stream
 * publishes it. A failed request writes none; a retried one writes the same item again, which
 * DynamoDB does not put on the stream a second time (an unchanged item makes no stream record).
 */
export const outboxRepository = {
  async add(events: OutboundEvent[], now = Date.now()): Promise<void> {
    const ttl = Math.floor(now / 1000) + OUTBOX_TTL_S;
    for (let i = 0; i < events.length; i += 25) {
      let requests = events.slice(i, i + 25).map((event) => ({
        PutRequest: { Item: { ...keys.outbox(event.id), type: 'OUTBOX', event, ttl } },
      }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        if (attempt === 5) throw new Error('Outbox write kept coming back unprocessed');
        const out = await getDocumentClient().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
        );
        requests = (out.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  },
};
