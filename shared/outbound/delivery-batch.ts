import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '@shared/util/logger';
import { getDeliveryQueue, type DeliveryMessage } from './delivery-queue';
import { deliverWebhook, type DeliveryOutcome } from './deliver-webhook';
import { retryDelayAfter } from './retry-schedule';

/**
 * One SQS batch of deliveries, attempted in parallel. A failed one stays on the queue (reported
 * in `batchItemFailures`) and is made invisible until its next attempt: exponential backoff by
 * receive count. After the last attempt it is left to the redrive policy: the dead-letter queue.
 */
export const deliverBatch = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
      let outcome: DeliveryOutcome;
      let message: DeliveryMessage | undefined;
      try {
        message = JSON.parse(record.body) as DeliveryMessage;
        outcome = await deliverWebhook(message);
      } catch (error) {
        outcome = { kind: 'failed', error: (error as Error).message };
      }
      const fields = {
        endpointId: message?.endpointId,
        eventId: message?.event.id,
        type: message?.event.type,
        attempt,
      };
      if (outcome.kind !== 'failed') {
        log('info', `webhook ${outcome.kind}`, { ...fields, ...outcome });
        return;
      }
      const delay = retryDelayAfter(attempt);
      log('warn', 'webhook delivery failed', {
        ...fields,
        status: outcome.status,
        error: outcome.error,
        retryInMs: delay ?? null,
      });
      if (delay !== undefined) {
        try {
          await getDeliveryQueue().retryLater(record.receiptHandle, delay);
        } catch (error) {
          log('warn', 'could not delay the retry', { ...fields, error: (error as Error).message });
        }
      }
      failures.push({ itemIdentifier: record.messageId });
    }),
  );
  return { batchItemFailures: failures };
};
