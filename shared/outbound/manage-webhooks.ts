import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import type { AuditAction, ChangeOrigin } from '@shared/audit/audit-entry';
import { auditPutsFor } from '@shared/audit/audit-repository';
import { prefixedId } from '@shared/util/ids';
import {
  defaultSubscribedTypes,
  isOutboundEventType,
  outboundEventTypes,
  type OutboundEvent,
  type OutboundEventType,
} from './event-catalogue';
import { eventLogRepository, replayRepository } from './event-log-repository';
import { newWebhookSecret, SECRET_ROTATION_OVERLAP_MS } from './webhook-secret';
import { checkWebhookHost, checkWebhookUrl, WebhookUrlError } from './webhook-url';
import { toEndpointView, webhookEndpointRepository, type WebhookEndpoint } from './webhook-endpoint-repository';

/** A refused admin request (unknown workspace or endpoint, bad URL, unknown event type). */
export class WebhookAdminError extends Error {
  override name = 'WebhookAdminError';
}

/** `--events a,b`: known types only; omitted = every type but `link.clicked`. */
export const parseEventTypes = (list: string | undefined): OutboundEventType[] => {
  if (list === undefined) return [...defaultSubscribedTypes];
  const names = [
    ...new Set(
      list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new WebhookAdminError('--events names no event type');
  const unknown = names.filter((n) => !isOutboundEventType(n));
  if (unknown.length)
    throw new WebhookAdminError(
      `Unknown event type(s): ${unknown.join(', ')} (known: ${outboundEventTypes.join(', ')})`,
    );
  return names as OutboundEventType[];
};

const endpointOrThrow = async (endpointId: string): Promise<WebhookEndpoint> => {
  const endpoint = await webhookEndpointRepository.findById(endpointId);
  if (!endpoint) throw new WebhookAdminError(`No webhook endpoint ${endpointId}`);
  return endpoint;
};

/** The audit entry of an endpoint change, as a transaction item (none without an origin); never its URL or secret. */
const webhookAudit = (
  endpoint: WebhookEndpoint,
  origin: ChangeOrigin | undefined,
  action: AuditAction,
  changedFields: string[] = [],
) =>
  auditPutsFor(endpoint.workspaceId, origin, {
    action,
    resource: { type: 'webhook_endpoint', id: endpoint.id },
    changedFields,
  });

export const addWebhookEndpoint = async (
  workspaceId: string,
  url: string,
  events: OutboundEventType[],
  now = new Date(),
  origin?: ChangeOrigin,
) => {
  try {
    await checkWebhookHost(checkWebhookUrl(url));
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new WebhookAdminError(error.message);
    throw error;
  }
  if (!(await workspaceRepository.findById(workspaceId))) throw new WebhookAdminError(`No workspace ${workspaceId}`);
  const endpoint: WebhookEndpoint = {
    id: prefixedId('wh'),
    workspaceId,
    url,
    events,
    enabled: true,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    disabledReason: null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await webhookEndpointRepository.create(endpoint, webhookAudit(endpoint, origin, 'webhook.created'));
  return { id: endpoint.id, secret: endpoint.secret };
};

export const listWebhookEndpoints = async (workspaceId: string) =>
  (await webhookEndpointRepository.listByWorkspace(workspaceId)).map(toEndpointView);

export const removeWebhookEndpoint = async (endpointId: string, origin?: ChangeOrigin) => {
  const endpoint = await endpointOrThrow(endpointId);
  await webhookEndpointRepository.remove(endpoint, webhookAudit(endpoint, origin, 'webhook.deleted'));
  return { id: endpointId, removed: true };
};

/** A new secret; the old one still signs (a second signature) for 24 hours. */
export const rotateWebhookSecret = async (endpointId: string, now = new Date(), origin?: ChangeOrigin) => {
  const endpoint = await endpointOrThrow(endpointId);
  const secret = newWebhookSecret();
  const previousSecretExpiresAt = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString();
  await webhookEndpointRepository.rotateSecret(
    endpoint,
    secret,
    previousSecretExpiresAt,
    now.toISOString(),
    webhookAudit(endpoint, origin, 'webhook.updated', ['secret', 'previousSecret', 'previousSecretExpiresAt']),
  );
  return { id: endpoint.id, secret, previousSecretExpiresAt };
};

/**
 * Re-sends the workspace's logged events since `since` that the endpoint subscribes to, with
 * their original ids. `onProgress` gets the count so far.
 */
export const replayWebhookEvents = async (
  endpointId: string,
  since: string,
  onProgress: (n: number) => void = () => {},
) => {
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new WebhookAdminError('--since must be an ISO 8601 date-time');
  const endpoint = await endpointOrThrow(endpointId);
  if (!endpoint.enabled)
    throw new WebhookAdminError(`Endpoint ${endpointId} is disabled (${endpoint.disabledReason ?? 'no reason'})`);
  let replayed = 0;
  for await (const page of eventLogRepository.since(endpoint.workspaceId, new Date(at).toISOString())) {
    const events = page.filter((e: OutboundEvent) => endpoint.events.includes(e.type));
    await replayRepository.request(endpoint.id, events);
    replayed += events.length;
    onProgress(replayed);
  }
  return { id: endpoint.id, since: new Date(at).toISOString(), replayed };
};
