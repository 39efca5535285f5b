import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { OutboundEvent } from './event-catalogue';
import { cutBatches, SEND_MESSAGE_BATCH_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import { outboundEnv } from './outbound-config';

/** One delivery: one event for one endpoint. Retried as a whole until the endpoint takes it. */
export interface DeliveryMessage {
  endpointId: string;
  workspaceId: string;
  event: OutboundEvent;
  /** A replay asked for (`webhooks replay`): posted again even though the endpoint had it (webhook-marker.ts). */
  replay?: boolean;
}

/** The webhook delivery queue: SQS deployed, an in-process stand-in locally. */
export interface DeliveryQueue {
  send(messages: DeliveryMessage[]): Promise<void>;
  /** Keeps a received message invisible for `delayMs` (its next attempt), before it is reported failed. */
  retryLater(receiptHandle: string, delayMs: number): Promise<void>;
}

/**
 * SQS allows at most 12 hours from the receive; a longer value is an error, not a clamp. The
 * change comes seconds after the receive, so 5 minutes of margin. (The schedule's longest is 10 h.)
 */
export const MAX_VISIBILITY_S = 12 * 3600 - 300;
const ATTEMPTS = 4;

export const createSqsDeliveryQueue = (options: { client: SQSClient; queueUrl: string }): DeliveryQueue => ({
  async send(messages) {
    const bodies = messages.map((m) => JSON.stringify(m));
    // Cut by count and bytes (an entry too large alone throws before any call); failed entries are resent alone.
    for (const batch of cutBatches(bodies, SEND_MESSAGE_BATCH_LIMITS, utf8Bytes)) {
      let entries = batch.map((body, j) => ({ Id: String(j), MessageBody: body }));
      for (let attempt = 1; entries.length > 0; attempt++) {
        const out = await options.client.send(
          new SendMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: entries }),
        );
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        if (failed.size === 0) break;
        if (attempt >= ATTEMPTS)
          throw new Error(`SendMessageBatch: ${failed.size} messages failed (${out.Failed?.[0]?.Code})`);
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        entries = entries.filter((e) => failed.has(e.Id));
      }
    }
  },
  async retryLater(receiptHandle, delayMs) {
    await options.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: options.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(MAX_VISIBILITY_S, Math.max(0, Math.ceil(delayMs / 1000))),
      }),
    );
  },
});

let queue: DeliveryQueue | undefined;

export const getDeliveryQueue = (): DeliveryQueue => {
  if (!queue) {
    const env = outboundEnv();
    if (!env.queueUrl) throw new Error('No webhook queue configured (WEBHOOK_QUEUE_URL)');
    queue = createSqsDeliveryQueue({ client: new SQSClient({ region: env.region }), queueUrl: env.queueUrl });
  }
  return queue;
};

export const setDeliveryQueue = (next: DeliveryQueue | undefined) => {
  queue = next;
};
