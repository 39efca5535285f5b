import type { OutboundEvent } from './event-catalogue';

/** One delivery: one event for one endpoint. Retried as a whole until the endpoint takes it. */
export interface DeliveryMessage {
  endpointId: string;
  workspaceId: string;
  event: OutboundEvent;
  /** A replay asked for (`webhooks replay`): posted again even though the endpoint had it (webhook-marker.ts). */
  replay?: boolean;
}

/**
 * The webhook delivery queue: SQS deployed (delivery-queue.ts), an in-process stand-in locally. A
 * module of its own so that the composition root (shared/runtime/services.ts) names the type
 * without importing the implementation.
 */
export interface DeliveryQueue {
  send(messages: DeliveryMessage[]): Promise<void>;
  /** Keeps a received message invisible for `delayMs` (its next attempt), before it is reported failed. */
  retryLater(receiptHandle: string, delayMs: number): Promise<void>;
}
