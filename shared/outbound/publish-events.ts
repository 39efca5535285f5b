import { log } from '@shared/util/logger';
import { getDeliveryQueue, type DeliveryMessage } from './delivery-queue';
import type { OutboundEvent } from './event-catalogue';
import { getEventBus } from './event-bus';
import { eventLogRepository } from './event-log-repository';
import type { StreamWork } from './stream-events';
import { webhookEndpointRepository, type WebhookEndpoint } from './webhook-endpoint-repository';

const subscribed = (endpoint: WebhookEndpoint, event: OutboundEvent) =>
  endpoint.enabled && endpoint.events.includes(event.type);

export interface PublishResult {
  published: number;
  enqueued: number;
}

/**
 * Publishes committed changes: every event onto the bus (for operators' rules), into the
 * workspace's event log (for replay; only workspaces with webhook endpoints keep one), and one delivery message per subscribed endpoint of the
 * event's own workspace onto the webhook queue. `link.clicked` goes nowhere unless one of the
 * workspace's endpoints subscribed to it (clicks are off by default). Replays skip the bus.
 */
export const publishOutbound = async (work: StreamWork[]): Promise<PublishResult> => {
  const workspaces = [...new Set(work.map((w) => w.event.workspaceId))];
  const endpointsOf = new Map(
    await Promise.all(workspaces.map(async (ws) => [ws, await webhookEndpointRepository.listByWorkspace(ws)] as const)),
  );
  const events: OutboundEvent[] = [];
  const messages: DeliveryMessage[] = [];
  for (const item of work) {
    const endpoints = endpointsOf.get(item.event.workspaceId) ?? [];
    if (item.kind === 'replay') {
      const endpoint = endpoints.find((e) => e.id === item.endpointId);
      if (endpoint && subscribed(endpoint, item.event))
        messages.push({ endpointId: endpoint.id, workspaceId: endpoint.workspaceId, event: item.event, replay: true });
      continue;
    }
    const targets = endpoints.filter((e) => subscribed(e, item.event));
    if (item.event.type === 'link.clicked' && targets.length === 0) continue;
    events.push(item.event);
    for (const endpoint of targets)
      messages.push({ endpointId: endpoint.id, workspaceId: endpoint.workspaceId, event: item.event });
  }
  if (events.length) {
    await getEventBus().put(events);
    // The replay log, for workspaces that have webhook endpoints (others have nothing to replay to).
    const logged = events.filter((e) => (endpointsOf.get(e.workspaceId)?.length ?? 0) > 0);
    if (logged.length) await eventLogRepository.append(logged);
  }
  if (messages.length) await getDeliveryQueue().send(messages);
  if (events.length || messages.length)
    log('info', 'outbound published', { events: events.length, deliveries: messages.length });
  return { published: events.length, enqueued: messages.length };
};
