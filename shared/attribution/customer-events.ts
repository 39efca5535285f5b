import { visitorIdFor } from '@shared/clicks/visitor-id';
import { AppError } from '@shared/errors/app-error';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import type { LinkRecord } from '@shared/links/link-record';
import { linkRepository } from '@shared/links/link-repository';
import { customerEvent } from '@shared/outbound/event-builders';
import { outboxRepository } from '@shared/outbound/outbox-repository';
import { uuid } from '@shared/util/ids';
import type { ClientRequestInfo } from './client-request';
import type { CustomerEvent, CustomerEventsBody } from './client-schemas';
import { customerEventDedup } from './customer-event-dedup';

export interface CustomerEventResult {
  eventId: string;
  status: 'queued' | 'duplicate';
}

/** The workspace's links named by the events; an unknown or foreign linkId is a 400 naming it. */
const linksOf = async (workspaceId: string, events: CustomerEvent[]): Promise<Map<string, LinkRecord>> => {
  const ids = [...new Set(events.map((e) => e.linkId).filter((id): id is string => id !== undefined))];
  const found = await Promise.all(ids.map((id) => linkRepository.findById(id)));
  const links = new Map<string, LinkRecord>();
  found.forEach((link) => link && link.workspaceId === workspaceId && links.set(link.id, link));
  const unknown = events.flatMap((e, i) =>
    e.linkId !== undefined && !links.has(e.linkId) ? [{ path: `events.${i}.linkId`, message: 'no such link' }] : [],
  );
  // As everywhere in v1: an unknown (or another workspace's) id is 404; details name the events.
  if (unknown.length) throw new AppError('not_found', 'Some events name links that do not exist', unknown);
  return links;
};

/** Properties as JSON text; `externalUserId` (no field of its own in the line format) rides along. */
const propertiesText = (event: CustomerEvent): string | null => {
  const properties = {
    ...(event.externalUserId !== undefined ? { externalUserId: event.externalUserId } : {}),
    ...event.properties,
  };
  return Object.keys(properties).length ? JSON.stringify(properties) : null;
};

/**
 * POST /v1/client/events: one `customer_event` per item. `eventId` is the dedup key for 7 days
 * (a missing one is generated); a repeat, in this request or an earlier one, is `duplicate`.
 * Claims of events that could not be queued are given back before the error surfaces.
 */
export const recordCustomerEvents = async (
  workspaceId: string,
  body: CustomerEventsBody,
  request: ClientRequestInfo,
  at = new Date(),
): Promise<CustomerEventResult[]> => {
  const links = await linksOf(workspaceId, body.events);
  const items = body.events.map((event) => ({ event, eventId: event.eventId ?? uuid() }));
  const seen = new Set<string>();
  const claimed = await Promise.all(
    items.map(async ({ eventId }) => {
      if (seen.has(eventId)) return false; // a repeat within this request
      seen.add(eventId);
      return customerEventDedup.claim(workspaceId, eventId, at);
    }),
  );
  const visitorId = await visitorIdFor(request.ip, request.userAgent, at);
  const { client } = request;
  const records: EventRecord[] = items
    .filter((_, i) => claimed[i])
    .map(({ event, eventId }) => {
      const link = event.linkId !== undefined ? links.get(event.linkId) : undefined;
      return {
        ...blankEvent({
          eventId,
          timestamp: at.toISOString(),
          eventType: 'customer_event',
          workspaceId,
          trafficType: client.isBot ? 'bot' : 'human',
        }),
        linkId: link?.id ?? null,
        deepLinkAppId: link?.deepLinkAppId ?? null,
        domain: link?.domain ?? null,
        linkKey: link?.key ?? null,
        linkType: link?.linkType ?? null,
        visitorId,
        country: request.country,
        deviceType: client.deviceType,
        platform: client.platform,
        browser: client.browser,
        os: client.os,
        responseKind: 'api',
        sdkEventName: event.name,
        sessionId: event.sessionId ?? null,
        clickId: event.clickId ?? null,
        attributionId: event.attributionId ?? null,
        installId: event.installId ?? null,
        properties: propertiesText(event),
      };
    });
  if (records.length) {
    try {
      await getEventSink().send(records);
      // Committed: now the outbound events (published from the table's stream).
      await outboxRepository.add(records.map(customerEvent));
    } catch (error) {
      await customerEventDedup.release(
        workspaceId,
        records.map((r) => r.eventId),
      );
      throw error;
    }
  }
  return items.map(({ eventId }, i) => ({ eventId, status: claimed[i] ? 'queued' : 'duplicate' }));
};
