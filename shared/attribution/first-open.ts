import type { AuthContext } from '@shared/auth/credential';
import { visitorIdFor } from '@shared/clicks/visitor-id';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import type { LinkRecord } from '@shared/links/link-record';
import { attributionEvents } from '@shared/outbound/event-builders';
import { outboxRepository } from '@shared/outbound/outbox-repository';
import { uuid } from '@shared/util/ids';
import { hasLinkReference, resolveClientLinkOrThrow, type ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import type { FirstOpenBody } from './client-schemas';
import { firstOpenRepository, type FirstOpenRecord } from './first-open-repository';
import {
  devicePlatformOf,
  isMatchGuaranteed,
  matchAttribution,
  type AttributionMatch,
  type MatchType,
} from './match-attribution';

/**
 * FirstOpenResponse of the client API plus `matchType`, so a match can be audited, and
 * `matchGuaranteed` (true only for a deterministic match, as Branch's `+match_guaranteed`).
 */
export interface FirstOpenResponse {
  openId: string;
  matched: boolean;
  matchType: MatchType | null;
  matchGuaranteed: boolean;
  deferredDeepLink: ClientLinkPayload | null;
}

const toResponse = (
  r: Pick<FirstOpenRecord, 'openId' | 'matched' | 'matchType' | 'deferredDeepLink'>,
): FirstOpenResponse => ({
  openId: r.openId,
  matched: r.matched,
  matchType: r.matchType,
  matchGuaranteed: isMatchGuaranteed(r.matchType),
  deferredDeepLink: r.deferredDeepLink,
});

/** The link a first-open names, if it names one (then only clicks on it match). */
export const namedLinkOf = async (workspaceId: string, body: FirstOpenBody): Promise<LinkRecord | undefined> =>
  hasLinkReference(body) ? resolveClientLinkOrThrow(workspaceId, body) : undefined;

/**
 * Matches a first open or deferred-deep-link request (deterministic ids first, then the fingerprint window); `claimant` claims a matched
 * click (see matchAttribution), null only looks.
 */
export const matchOpen = async (
  auth: AuthContext,
  body: FirstOpenBody,
  request: ClientRequestInfo,
  at: Date,
  claimant: string | null,
) => {
  const named = await namedLinkOf(auth.workspaceId, body);
  const match = await matchAttribution(
    { workspaceId: auth.workspaceId, attributionId: body.attributionId, clickId: body.clickId, linkId: named?.id },
    { ip: request.ip, platform: devicePlatformOf(auth.publishable, request) },
    at,
    claimant,
  );
  return { named, match };
};

const openEvent = async (
  auth: AuthContext,
  body: FirstOpenBody,
  request: ClientRequestInfo,
  openId: string,
  match: AttributionMatch | null,
  named: LinkRecord | undefined,
  at: Date,
): Promise<EventRecord> => {
  const { client } = request;
  const link = match?.record.link;
  return {
    ...blankEvent({
      eventId: openId,
      timestamp: at.toISOString(),
      eventType: body.eventType,
      workspaceId: auth.workspaceId,
      trafficType: client.isBot ? 'bot' : 'human',
    }),
    linkId: link?.linkId ?? named?.id ?? null,
    deepLinkAppId: link ? link.deepLinkAppId : (named?.deepLinkAppId ?? null),
    domain: link?.domain ?? named?.domain ?? null,
    linkKey: link?.key ?? named?.key ?? null,
    linkType: link?.linkType ?? named?.linkType ?? null,
    visitorId: await visitorIdFor(request.ip, request.userAgent, at),
    country: request.country,
    deviceType: client.deviceType,
    platform: devicePlatformOf(auth.publishable, request),
    browser: client.browser,
    os: client.os,
    responseKind: 'api',
    sessionId: body.sessionId ?? match?.record.sessionId ?? null,
    clickId: match?.record.clickId ?? null,
    attributionId: match?.record.attributionId ?? null,
    installId: body.installId ?? null,
  };
};

/** Sends an open's event that has not reached the sink yet (and its outbound events), then clears it. */
const flushPending = async (record: FirstOpenRecord): Promise<void> => {
  if (!record.pendingEvent) return;
  await getEventSink().send([record.pendingEvent]);
  await outboxRepository.add(attributionEvents(record.pendingEvent, record));
  await firstOpenRepository.markEventSent(record.workspaceId, record.installId);
};

/**
 * `first_open` or `install`: matched (deterministic, then probabilistic) and recorded once per
 * `installId`; a repeat answers the same openId and match and records nothing new. Without an
 * installId every call is a new open.
 */
export const recordFirstOpen = async (
  auth: AuthContext,
  body: FirstOpenBody,
  request: ClientRequestInfo,
  at = new Date(),
): Promise<FirstOpenResponse> => {
  if (body.installId !== undefined) {
    const existing = await firstOpenRepository.find(auth.workspaceId, body.installId);
    if (existing) {
      await flushPending(existing);
      return toResponse(existing);
    }
  }
  const openId = uuid();
  // The install claims the click it matches (without an installId, this open does).
  const { named, match } = await matchOpen(auth, body, request, at, body.installId ?? openId);
  const event = await openEvent(auth, body, request, openId, match, named, at);
  const opened = {
    openId,
    matched: match !== null,
    matchType: match?.matchType ?? null,
    deferredDeepLink: match?.record.link ?? null,
  };
  if (body.installId === undefined) {
    await getEventSink().send([event]);
    await outboxRepository.add(attributionEvents(event, opened));
    return toResponse(opened);
  }
  const record: FirstOpenRecord = {
    ...opened,
    workspaceId: auth.workspaceId,
    installId: body.installId,
    eventType: body.eventType,
    openedAt: at.toISOString(),
    pendingEvent: event,
  };
  const earlier = await firstOpenRepository.putIfNew(record);
  await flushPending(earlier ?? record);
  return toResponse(earlier ?? record);
};
