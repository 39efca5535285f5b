import { createHash } from 'node:crypto';
import type { ClientLinkPayload } from '@shared/attribution/client-link';
import type { EventRecord } from '@shared/events/event-record';
import type { LinkRecord } from '@shared/links/link-record';
import { toLinkResource } from '@shared/links/link-view';
import type { AttributionEventData, CustomerEventData, OutboundEvent, OutboundEventType } from './event-catalogue';

/**
 * An event id derived from what the event is about: the same change (a stream record retried,
 * an open re-flushed, a replay) always gets the same id, and so the same `webhook-id`.
 */
export const outboundEventId = (type: OutboundEventType, workspaceId: string, sourceId: string): string =>
  `evt_${createHash('sha256').update(`${type}\n${workspaceId}\n${sourceId}`).digest('hex').slice(0, 32)}`;

/** A link event: `data` is the Link resource exactly as the v1 API returns it (no password hash). */
export const linkEvent = (
  type: OutboundEventType,
  link: LinkRecord,
  sourceId: string,
  occurredAt: string,
): OutboundEvent => ({
  id: outboundEventId(type, link.workspaceId, sourceId),
  type,
  occurredAt,
  workspaceId: link.workspaceId,
  data: toLinkResource(link),
});

const attributionData = (
  record: EventRecord,
  open: { matched: boolean; matchType: string | null; deferredDeepLink: ClientLinkPayload | null },
): AttributionEventData => ({
  openId: record.eventId,
  eventType: record.eventType === 'install' ? 'install' : 'first_open',
  installId: record.installId,
  matched: open.matched,
  matchType: open.matchType,
  linkId: record.linkId,
  deepLinkAppId: record.deepLinkAppId,
  domain: record.domain,
  linkKey: record.linkKey,
  linkType: record.linkType,
  clickId: record.clickId,
  attributionId: record.attributionId,
  sessionId: record.sessionId,
  deviceType: record.deviceType,
  platform: record.platform,
  browser: record.browser,
  os: record.os,
  trafficType: record.trafficType,
  deferredDeepLink: open.deferredDeepLink as AttributionEventData['deferredDeepLink'],
});

/**
 * The events of one recorded first open / install: `attribution.install` or
 * `attribution.first_open`, plus `attribution.deferred_deep_link` when the match handed the app a
 * deferred deep link. Built from the event the lake got: never a raw IP, visitor hash or key.
 */
export const attributionEvents = (
  record: EventRecord,
  open: { matched: boolean; matchType: string | null; deferredDeepLink: ClientLinkPayload | null },
): OutboundEvent[] => {
  const data = attributionData(record, open);
  const type = record.eventType === 'install' ? 'attribution.install' : 'attribution.first_open';
  const events: OutboundEvent[] = [
    {
      id: outboundEventId(type, record.workspaceId, record.eventId),
      type,
      occurredAt: record.timestamp,
      workspaceId: record.workspaceId,
      data,
    },
  ];
  if (open.deferredDeepLink) {
    const ddl = 'attribution.deferred_deep_link';
    events.push({
      id: outboundEventId(ddl, record.workspaceId, record.eventId),
      type: ddl,
      occurredAt: record.timestamp,
      workspaceId: record.workspaceId,
      data,
    });
  }
  return events;
};

const parseProperties = (text: string | null): Record<string, unknown> => {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** customer_event.received from the recorded customer event. */
export const customerEvent = (record: EventRecord): OutboundEvent => {
  const { externalUserId, ...properties } = parseProperties(record.properties);
  const data: CustomerEventData = {
    eventId: record.eventId,
    name: record.sdkEventName ?? '',
    linkId: record.linkId,
    deepLinkAppId: record.deepLinkAppId,
    domain: record.domain,
    linkKey: record.linkKey,
    linkType: record.linkType,
    sessionId: record.sessionId,
    clickId: record.clickId,
    attributionId: record.attributionId,
    installId: record.installId,
    externalUserId: typeof externalUserId === 'string' ? externalUserId : null,
    properties,
    deviceType: record.deviceType,
    platform: record.platform,
    browser: record.browser,
    os: record.os,
    trafficType: record.trafficType,
    source: record.responseKind === 'browser' ? 'browser' : 'api',
  };
  const type = 'customer_event.received';
  return {
    id: outboundEventId(type, record.workspaceId, record.eventId),
    type,
    occurredAt: record.timestamp,
    workspaceId: record.workspaceId,
    data,
  };
};
