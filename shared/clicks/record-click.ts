import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import type { Tracking } from '@shared/links/link-record';
import { uuid } from '@shared/util/ids';
import { parseUserAgent, type ClientInfo } from './user-agent';
import { visitorIdFor } from './visitor-id';

/** The link fields a click needs (a LinkRecord or the edge's redirect record both carry them). */
export interface ClickedLink {
  workspaceId: string;
  linkId: string;
  linkType: string;
  deepLinkAppId: string | null;
  domain: string;
  key: string;
  tracking: Tracking | null;
}

export interface ClickRequest {
  link: ClickedLink;
  userAgent: string | null;
  /** The user agent's classification, when the caller already parsed it (else parsed here). */
  client?: ClientInfo;
  ip: string | null;
  country: string | null;
  referrer: string | null;
  resolvedDestinationUrl: string | null;
  responseKind: string;
  /** HEAD requests and the like: never a human click, whatever the user agent says. */
  forceBot?: boolean;
  ids?: Partial<Pick<EventRecord, 'clickId' | 'attributionId' | 'sessionId' | 'installId'>>;
  /** The redirect rule or A/B-test variant that chose the destination. */
  decidedBy?: { ruleId: string | null; variantId: string | null };
  at?: Date;
}

export interface RecordedClick {
  event: EventRecord;
  client: ClientInfo;
  isBot: boolean;
}

export const referrerHostOf = (referrer: string | null): string | null => {
  if (!referrer) return null;
  try {
    return new URL(referrer).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
};

/** Builds the `click` event of a request (no I/O beyond the visitor salt). */
export const buildClickEvent = async (request: ClickRequest): Promise<RecordedClick> => {
  const at = request.at ?? new Date();
  const client = request.client ?? parseUserAgent(request.userAgent);
  const isBot = request.forceBot === true || client.isBot;
  const { link } = request;
  const event: EventRecord = {
    ...blankEvent({
      eventId: uuid(),
      timestamp: at.toISOString(),
      eventType: 'click',
      workspaceId: link.workspaceId,
      trafficType: isBot ? 'bot' : 'human',
    }),
    linkId: link.linkId,
    deepLinkAppId: link.deepLinkAppId,
    domain: link.domain,
    linkKey: link.key,
    linkType: link.linkType,
    visitorId: await visitorIdFor(request.ip, request.userAgent, at),
    country: request.country?.toUpperCase().slice(0, 2) ?? null,
    deviceType: isBot ? 'bot' : client.deviceType,
    platform: client.platform,
    browser: client.browser,
    os: client.os,
    referrerHost: referrerHostOf(request.referrer),
    resolvedDestinationUrl: request.resolvedDestinationUrl,
    responseKind: request.responseKind,
    utmSource: link.tracking?.utmSource ?? null,
    utmMedium: link.tracking?.utmMedium ?? null,
    utmCampaign: link.tracking?.utmCampaign ?? null,
    clickId: request.ids?.clickId ?? null,
    attributionId: request.ids?.attributionId ?? null,
    sessionId: request.ids?.sessionId ?? null,
    installId: request.ids?.installId ?? null,
    ruleId: request.decidedBy?.ruleId ?? null,
    variantId: request.decidedBy?.variantId ?? null,
  };
  return { event, client, isBot };
};

/**
 * A click, wherever it comes from (edge redirect, client API): sends the `click` event to the
 * event stream. No shared item is written per click: the link's counters (`clicks`,
 * `botClicks`, `lastClicked`, `lastBotClickedAt`) are moved by the counter consumer, one update
 * per link per batch of the stream (link-counters.ts).
 */
export const recordClick = async (request: ClickRequest): Promise<RecordedClick> => {
  const recorded = await buildClickEvent(request);
  await getEventSink().send([recorded.event]);
  return recorded;
};
