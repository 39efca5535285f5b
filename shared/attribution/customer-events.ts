import { visitorIdFor } from '@shared/clicks/visitor-id';
import { tokenRefusalMessage, verifyClickToken } from '@shared/conversions/click-token';
import { conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import { AppError, type ValidationIssue } from '@shared/errors/app-error';
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
  /** `rejected`: the event's click token did not verify (`error` says why); the others are unaffected. */
  status: 'queued' | 'duplicate' | 'rejected';
  error?: { code: 'invalid_request'; message: string; details: ValidationIssue[] };
}

/**
 * Where the events come from: `browser` when sent with a browser's publishable key (anyone can
 * send those: analytics and webhooks can tell them apart), `api` otherwise. Stored as the
 * event's `responseKind`, the column that says how an event came in (`api` for client calls).
 */
export type CustomerEventSource = 'browser' | 'api';

/** An event of the request, by its index: its click token's claims applied, or why it is rejected. */
type Checked =
  { index: number; event: CustomerEvent } | { index: number; rejection: NonNullable<CustomerEventResult['error']> };

const rejection = (index: number, message: string, field = 'clickToken'): Checked => ({
  index,
  rejection: { code: 'invalid_request', message, details: [{ path: `events.${index}.${field}`, message }] },
});

/**
 * Verifies the click tokens (signature with the workspace's secret, workspace, age): a valid
 * token gives the event its click and link (an event that names another click or link than its
 * token is rejected). The workspace's secret is read once (cached) and only for a token.
 */
const checkTokens = async (workspaceId: string, events: CustomerEvent[], at: Date): Promise<Checked[]> => {
  const settings = events.some((e) => e.clickToken !== undefined)
    ? await conversionSettingsRepository.find(workspaceId, { rereadMiss: true })
    : undefined;
  return events.map((event, index) => {
    if (event.clickToken === undefined) return { index, event };
    const check = verifyClickToken(event.clickToken, workspaceId, settings?.secret, at);
    if (!check.ok) return rejection(index, tokenRefusalMessage[check.reason]);
    const { clickId, linkId } = check.claims;
    if (event.linkId !== undefined && event.linkId !== linkId)
      return rejection(index, 'The linkId is not the link of the click token', 'linkId');
    if (event.clickId !== undefined && event.clickId !== clickId)
      return rejection(index, 'The clickId is not the click of the click token', 'clickId');
    return { index, event: { ...event, clickId, linkId } };
  });
};

/** The workspace's links named by the events; an unknown or foreign linkId is a 400 naming it. */
const linksOf = async (
  workspaceId: string,
  events: ReadonlyArray<{ index: number; event: CustomerEvent }>,
): Promise<Map<string, LinkRecord>> => {
  const ids = [...new Set(events.map((e) => e.event.linkId).filter((id): id is string => id !== undefined))];
  const found = await Promise.all(ids.map((id) => linkRepository.findById(id)));
  const links = new Map<string, LinkRecord>();
  found.forEach((link) => link && link.workspaceId === workspaceId && links.set(link.id, link));
  const unknown = events.flatMap(({ event: e, index: i }) =>
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
 * An event whose click token does not verify is `rejected` with its reason, the others are
 * queued; when every event is rejected the request is 400 `invalid_request`.
 * Claims of events that could not be queued are given back before the error surfaces.
 */
export const recordCustomerEvents = async (
  workspaceId: string,
  body: CustomerEventsBody,
  request: ClientRequestInfo,
  at = new Date(),
  source: CustomerEventSource = 'api',
): Promise<CustomerEventResult[]> => {
  const checked = await checkTokens(workspaceId, body.events, at);
  const valid = checked.filter((c) => 'event' in c);
  if (valid.length === 0) {
    const rejections = checked.flatMap((c) => ('rejection' in c ? [c.rejection] : []));
    throw new AppError(
      'invalid_request',
      rejections.length === 1 ? (rejections[0]?.message ?? 'The event is rejected') : 'Every event is rejected',
      rejections.flatMap((r) => r.details),
    );
  }
  const links = await linksOf(workspaceId, valid);
  const items = checked.map((c) => ({
    checked: c,
    event: 'event' in c ? c.event : undefined,
    eventId: body.events[c.index]?.eventId ?? uuid(),
  }));
  const seen = new Set<string>();
  const claimed = await Promise.all(
    items.map(async ({ eventId, event }) => {
      if (!event) return false; // rejected
      if (seen.has(eventId)) return false; // a repeat within this request
      seen.add(eventId);
      return customerEventDedup.claim(workspaceId, eventId, at);
    }),
  );
  const visitorId = await visitorIdFor(request.ip, request.userAgent, at);
  const { client } = request;
  const records: EventRecord[] = items.flatMap(({ event, eventId }, i) => {
    if (!event || !claimed[i]) return [];
    const link = event.linkId !== undefined ? links.get(event.linkId) : undefined;
    return [
      {
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
        responseKind: source,
        sdkEventName: event.name,
        sessionId: event.sessionId ?? null,
        clickId: event.clickId ?? null,
        attributionId: event.attributionId ?? null,
        installId: event.installId ?? null,
        properties: propertiesText(event),
      },
    ];
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
  return items.map(({ eventId, checked: c }, i): CustomerEventResult => {
    if ('rejection' in c) return { eventId, status: 'rejected', error: c.rejection };
    return { eventId, status: claimed[i] ? 'queued' : 'duplicate' };
  });
};
