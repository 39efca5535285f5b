import { log } from '@shared/util/logger';
import type { DeliveryMessage } from './delivery-queue';
import { claimDelivery, markDelivered, releaseDelivery } from './webhook-marker';
import { postWebhook } from './webhook-post';
import { signedHeaders } from './webhook-signer';
import { checkWebhookUrl, WebhookUrlError } from './webhook-url';
import { webhookEndpointRepository, type WebhookEndpoint } from './webhook-endpoint-repository';

export type DeliveryOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'dropped'; reason: string }
  | { kind: 'disabled' }
  | { kind: 'failed'; status?: number; error?: string };

/** The secrets a delivery is signed with: the current one, and a rotated-out one for its 24 hours. */
export const signingSecretsOf = (endpoint: WebhookEndpoint, now: Date): string[] => [
  endpoint.secret,
  ...(endpoint.previousSecret &&
  endpoint.previousSecretExpiresAt &&
  Date.parse(endpoint.previousSecretExpiresAt) > now.getTime()
    ? [endpoint.previousSecret]
    : []),
];

/**
 * One attempt of one delivery (Standard Webhooks): the event envelope as the body, `webhook-id` =
 * the event id (the same on every attempt and replay), signed now; a copy of a delivery already
 * made (a re-put, SQS delivering twice) is dropped (webhook-marker.ts). 2xx is delivered; 410 Gone
 * disables the endpoint; anything else (or no answer) is a failure the queue retries.
 */
export const deliverWebhook = async (message: DeliveryMessage, now = new Date()): Promise<DeliveryOutcome> => {
  const endpoint = await webhookEndpointRepository.find(message.workspaceId, message.endpointId);
  if (!endpoint) return { kind: 'dropped', reason: 'endpoint removed' };
  if (!endpoint.enabled) return { kind: 'dropped', reason: 'endpoint disabled' };
  // The endpoint's own workspace only, whatever a message claims.
  if (endpoint.workspaceId !== message.event.workspaceId) return { kind: 'dropped', reason: 'foreign event' };
  let url: URL;
  try {
    url = checkWebhookUrl(endpoint.url);
  } catch (error) {
    return { kind: 'dropped', reason: (error as Error).message };
  }
  // Once per endpoint and event id, whatever was re-put (webhook-marker.ts); a replay asked for posts again.
  const marked = message.replay !== true;
  if (marked) {
    const claim = await claimDelivery(endpoint.id, message.event.id, now);
    if (claim === 'delivered') return { kind: 'dropped', reason: 'already delivered' };
    if (claim === 'in_flight') return { kind: 'failed', error: 'another attempt of this delivery is in flight' };
  }
  const payload = JSON.stringify(message.event);
  const headers = signedHeaders(message.event.id, now, payload, signingSecretsOf(endpoint, now));
  let status: number;
  try {
    status = await postWebhook(url, headers, payload);
  } catch (error) {
    if (marked) await releaseDelivery(endpoint.id, message.event.id);
    if (error instanceof WebhookUrlError || (error as NodeJS.ErrnoException).code === 'EADDRNOTPUBLIC') {
      log('warn', 'webhook refused: non-public address', { endpointId: endpoint.id });
    }
    return { kind: 'failed', error: (error as Error).message };
  }
  if (status >= 200 && status < 300) {
    if (marked) await markDelivered(endpoint.id, message.event.id, now);
    return { kind: 'delivered', status };
  }
  if (marked) await releaseDelivery(endpoint.id, message.event.id);
  if (status === 410) {
    await webhookEndpointRepository.disable(
      endpoint.workspaceId,
      endpoint.id,
      'endpoint answered 410 Gone',
      now.toISOString(),
    );
    log('info', 'webhook endpoint disabled (410)', { endpointId: endpoint.id });
    return { kind: 'disabled' };
  }
  return { kind: 'failed', status };
};
