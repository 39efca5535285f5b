import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from './delivery-queue-interface';
import { sendInBatches } from '@shared/util/batch-send';
import { SEND_MESSAGE_BATCH_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import { outboundEnv } from './outbound-config';
import { service } from '@shared/runtime/services';

export type { DeliveryMessage, DeliveryQueue } from './delivery-queue-interface';

/**
 * SQS allows at most 12 hours from the receive; a longer value is an error, not a clamp. The
 * change comes seconds after the receive, so 5 minutes of margin. (The schedule's longest is 10 h.)
 */
export const MAX_VISIBILITY_S = 12 * 3600 - 300;
const ATTEMPTS = 4;

export const createSqsDeliveryQueue = (options: { client: SQSClient; queueUrl: string }): DeliveryQueue => ({
  async send(messages) {
    // Cut by count and bytes (an entry too large alone throws before any call); failed entries are
    // resent alone (200, 400, 800 ms after; shared/util/batch-send.ts), then it throws.
    let lastCode: string | undefined;
    await sendInBatches(
      messages.map((m) => JSON.stringify(m)),
      {
        limits: SEND_MESSAGE_BATCH_LIMITS,
        bytes: utf8Bytes,
        maxAttempts: ATTEMPTS,
        delayMs: (resend) => 100 * 2 ** resend,
        exhausted: (left) => new Error(`SendMessageBatch: ${left.length} messages failed (${lastCode})`),
        send: async (bodies) => {
          const out = await options.client.send(
            new SendMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: bodies.map((body, j) => ({ Id: String(j), MessageBody: body })),
            }),
          );
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          lastCode = out.Failed?.[0]?.Code;
          return bodies.filter((_, j) => failed.has(String(j)));
        },
      },
    );
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

/** The production queue: SQS at WEBHOOK_QUEUE_URL. */
const productionDeliveryQueue = (): DeliveryQueue => {
  const env = outboundEnv();
  if (!env.queueUrl) throw new Error('No webhook queue configured (WEBHOOK_QUEUE_URL)');
  return createSqsDeliveryQueue({ client: new SQSClient({ region: env.region }), queueUrl: env.queueUrl });
};

/** The process's queue (shared/runtime/services.ts): the production one unless another was provided. */
export const getDeliveryQueue = (): DeliveryQueue => service('deliveryQueue', productionDeliveryQueue);
