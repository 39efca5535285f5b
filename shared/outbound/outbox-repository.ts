import { batchWrite } from '@shared/db/batch-write';
import { keys } from '@shared/db/keys';
import type { OutboundEvent } from './event-catalogue';

const OUTBOX_TTL_S = 24 * 3600;

/**
 * Attribution and customer events reach the outbound path through the table: once the event is
 * committed (it reached the event sink), an OUTBOX item is written, and the table's stream
 * publishes it. A failed request writes none; a retried one writes the same item again, which
 * DynamoDB does not put on the stream a second time (an unchanged item makes no stream record).
 * The items go in BatchWriteItem calls cut by count and bytes (shared/db/batch-write.ts).
 */
export const outboxRepository = {
  async add(events: OutboundEvent[], now = Date.now()): Promise<void> {
    const ttl = Math.floor(now / 1000) + OUTBOX_TTL_S;
    await batchWrite(
      events.map((event) => ({ PutRequest: { Item: { ...keys.outbox(event.id), type: 'OUTBOX', event, ttl } } })),
      {
        maxAttempts: 5,
        delayMs: (resend) => 50 * 2 ** resend,
        exhausted: () => new Error('Outbox write kept coming back unprocessed'),
      },
    );
  },
};
