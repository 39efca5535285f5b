import { log } from '@shared/util/logger';
import type { DeliveryMessage } from './delivery-queue';
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
 * the event id (the same on every attempt and replay), signed now. 2xx is delivered; 410 Gone
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
  const payload = JSON.stringify(message.event);
  const headers = signedHeaders(message.event.id, now, payload, signingSecretsOf(endpoint, now));
  let status: number;
  try {
    status = await postWebhook(url, headers, payload);
  } catch (error) {
    if (error instanceof WebhookUrlError || (error as NodeJS.ErrnoException).code === 'EADDRNOTPUBLIC') {
      log('warn', 'webhook refused: non-public address', { endpointId: endpoint.id });
    }
    return { kind: 'failed', error: (error as Error).message };
  }
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
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
