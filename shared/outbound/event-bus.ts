import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { OutboundEvent } from './event-catalogue';
import type { EventBus } from './event-bus-interface';
import { sendInBatches } from '@shared/util/batch-send';
import { PUT_EVENTS_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import { outboundEnv } from './outbound-config';
import { service } from '@shared/runtime/services';

export type { EventBus } from './event-bus-interface';

const ATTEMPTS = 4;

/** An entry's size as EventBridge counts it against the call's limit (byte-batches.ts). */
export const busEntrySize = (entry: PutEventsRequestEntry): number =>
  (entry.Time ? 14 : 0) +
  utf8Bytes(entry.Source) +
  utf8Bytes(entry.DetailType) +
  utf8Bytes(entry.Detail) +
  (entry.Resources ?? []).reduce((sum, r) => sum + utf8Bytes(r), 0);

/** The entry of one event: `source` = the stack's name, `detail-type` = the event type, `detail` = the envelope. */
export const busEntry = (event: OutboundEvent, busName: string, source: string): PutEventsRequestEntry => ({
  EventBusName: busName,
  Source: source,
  DetailType: event.type,
  Detail: JSON.stringify(event),
  Time: new Date(event.occurredAt),
});

/**
 * PutEvents over the official client, in calls cut by count and bytes (an entry too large alone
 * throws `EntryTooLarge` before any call); entries that fail (throttling, internal) are resent
 * alone (200, 400, 800 ms after; shared/util/batch-send.ts), then the call throws.
 */
export const createEventBridgeBus = (options: {
  client: EventBridgeClient;
  busName: string;
  source: string;
}): EventBus => ({
  async put(events) {
    let lastFailure: { ErrorCode?: string; ErrorMessage?: string } | undefined;
    await sendInBatches(
      events.map((e) => busEntry(e, options.busName, options.source)),
      {
        limits: PUT_EVENTS_LIMITS,
        bytes: busEntrySize,
        maxAttempts: ATTEMPTS,
        delayMs: (resend) => 100 * 2 ** resend,
        exhausted: (left) =>
          new Error(
            `PutEvents: ${left.length} entries failed (${lastFailure?.ErrorCode}: ${lastFailure?.ErrorMessage})`,
          ),
        send: async (entries) => {
          const out = await options.client.send(new PutEventsCommand({ Entries: entries }));
          if (!out.FailedEntryCount) return [];
          lastFailure = out.Entries?.find((e) => e.ErrorCode);
          return entries.filter((_, j) => out.Entries?.[j]?.ErrorCode);
        },
      },
    );
  },
});

/** The production bus: EventBridge, OUTBOUND_BUS_NAME. */
const productionEventBus = (): EventBus => {
  const env = outboundEnv();
  if (!env.busName) throw new Error('No event bus configured (OUTBOUND_BUS_NAME)');
  return createEventBridgeBus({
    client: new EventBridgeClient({ region: env.region }),
    busName: env.busName,
    source: env.eventSource,
  });
};

/** The process's bus (shared/runtime/services.ts): the production one unless another was provided. */
export const getEventBus = (): EventBus => service('eventBus', productionEventBus);
