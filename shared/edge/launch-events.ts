import { buildClickEvent } from '@shared/clicks/record-click';
import type { EventType } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { uuid } from '@shared/util/ids';
import { knownHostOf, LINK_KEY } from './handle-click';
import { plainNotFound } from './html/status-page';
import { findRecordOnHost } from './redirect-lookup';
import { bodyBytes } from '@shared/http/request-body';

/**
 * The taps the launch view page reports (the impression is recorded when the page is served).
 * `launch_view_auto_open_attempt` is not among them: the page attempts nothing on its own.
 */
const BEACON_EVENTS: Record<string, EventType> = {
  primary_click: 'launch_view_primary_click',
  secondary_click: 'launch_view_secondary_click',
};

const noContent = (status: number): ApiResult => ({ statusCode: status, headers: { 'Cache-Control': 'no-store' } });

/**
 * POST /api/launch-view-events (the page's `navigator.sendBeacon`, form-urlencoded `k`, `e`,
 * `c`): records the step as its `launch_view_*` event for the deep link on this host, with the
 * same visitor, device and click id as the click that served the page. 204; 400 for anything
 * that is not a known step of a live deep link on this host.
 */
export const recordLaunchViewEvent = async (event: ApiEvent): Promise<ApiResult> => {
  const known = await knownHostOf(event);
  if (!known) return plainNotFound();
  const { request, host } = known;
  const raw = bodyBytes(event);
  if (raw.length > 2048) return noContent(413);
  const form = new URLSearchParams(raw.toString('utf8'));
  const key = form.get('k') ?? '';
  const eventType = BEACON_EVENTS[form.get('e') ?? ''];
  const clickId = form.get('c');
  if (!eventType || !LINK_KEY.test(key) || host.alternate) return noContent(400);
  const record = await findRecordOnHost(host, key);
  if (!record || record.archived || record.linkType !== 'DEEPLINK') return noContent(400);
  const { event: click } = await buildClickEvent({
    link: { ...record, domain: host.hostname, key },
    userAgent: request.userAgent,
    ip: request.ip,
    country: request.country,
    referrer: request.referrer,
    resolvedDestinationUrl: null,
    responseKind: 'launch_view',
    ids: clickId && /^[0-9a-f-]{36}$/.test(clickId) ? { clickId } : undefined,
  });
  await getEventSink().send([{ ...click, eventId: uuid(), eventType }]);
  return noContent(204);
};
