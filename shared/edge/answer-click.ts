import { buildClickEvent, type ClickRequest } from '@shared/clicks/record-click';
import { recordClickWithin } from '@shared/clicks/record-click-within';
import type { EventRecord } from '@shared/events/event-record';
import { parseUserAgent } from '@shared/clicks/user-agent';
import type { ApiResult } from '@shared/http/api-types';
import { headerUrl } from '@shared/http/header-url';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { uuid } from '@shared/util/ids';
import { log } from '@shared/util/logger';
import { getAppCached, openInAppUrl } from './app-links';
import { decideOutcome, type EdgeOutcome } from './edge-outcome';
import type { EdgeRequest } from './edge-request';
import type { ResolvedHost } from './host-resolver';
import { launchViewPage } from './html/launch-view-page';
import { passwordPage } from './html/password-page';
import { previewPage } from './html/preview-page';
import { statusPage } from './html/status-page';

/**
 * Headers of every edge redirect: never cached anywhere, so every click reaches the edge and is
 * counted. The location is sent serialized (`new URL(...).href`): a header carries ASCII only.
 */
export const redirectTo = (location: string, status = 302): ApiResult => ({
  statusCode: status,
  headers: { Location: headerUrl(location), 'Cache-Control': 'private, max-age=0', 'Referrer-Policy': 'strict-origin-when-cross-origin' },
});

export interface ClickInput {
  request: EdgeRequest;
  host: ResolvedHost;
  key: string;
  record: RedirectRecord | undefined;
  /** The right password was just given (POST). */
  unlocked: boolean;
  requestId: string;
  /** The launch view shown again after an auto-open attempt: no new click, no second attempt. */
  resumeClickId?: string | null;
  now?: Date;
}

const clickRequestOf = (input: ClickInput, record: RedirectRecord, responseKind: string, resolved: string | null, clickId?: string): ClickRequest => ({
  link: { ...record, domain: input.host.hostname, key: input.key },
  userAgent: input.request.userAgent,
  ip: input.request.ip,
  country: input.request.country,
  referrer: input.request.referrer,
  resolvedDestinationUrl: resolved,
  responseKind,
  forceBot: input.request.method === 'HEAD',
  ids: clickId ? { clickId } : undefined,
  at: input.now,
});

/**
 * Records the click (counters + `click` event, plus the launch view's impression) while the
 * response is built; the answer waits for it at most CLICK_RECORD_BUDGET_MS
 * (record-click-within.ts), so nothing runs after the Lambda returns. What is not recorded in
 * time, or fails, is logged as a replayable record (click-replay.ts); the visitor still gets the
 * answer.
 */
const recordInBackground = async (input: ClickInput, click: ClickRequest, impression: boolean): Promise<void> => {
  let recorded: Awaited<ReturnType<typeof buildClickEvent>>;
  try {
    recorded = await buildClickEvent(click);
  } catch (error) {
    log('error', 'edge click not recorded', { requestId: input.requestId, error: String(error), click: { ...click, ip: undefined } });
    return;
  }
  const events: EventRecord[] = impression
    ? [recorded.event, { ...recorded.event, eventId: uuid(), eventType: 'launch_view_impression' }]
    : [recorded.event];
  await recordClickWithin(recorded, events, { requestId: input.requestId });
};

const resolvedOf = (outcome: EdgeOutcome): string | null =>
  'destination' in outcome ? outcome.destination : 'location' in outcome ? outcome.location : null;

/** The answer to a click on a known host: the outcome's page or redirect, with the click recorded alongside. */
export const answerClick = async (input: ClickInput): Promise<ApiResult> => {
  const { request, host, key, record } = input;
  const now = input.now ?? new Date();
  const client = parseUserAgent(request.userAgent);
  let outcome = decideOutcome({ host, record, client, unlocked: input.unlocked, now });
  const isHead = request.method === 'HEAD';
  const human = !client.isBot && !isHead;

  // A human at the password form has not clicked through yet: the click is counted when the
  // right password opens the link.
  if (outcome.kind === 'password' && human) return passwordPage({ status: 200, key });

  const app =
    outcome.kind === 'launch_view' && record?.deepLinkAppId ? await getAppCached(record.workspaceId, record.deepLinkAppId) : undefined;
  const platform = client.platform === 'ios' || client.platform === 'android' ? client.platform : null;
  if (outcome.kind === 'launch_view' && (!app || !platform || !app[platform])) outcome = { kind: 'redirect', destination: outcome.destination };

  const resuming = outcome.kind === 'launch_view' && input.resumeClickId ? input.resumeClickId : null;
  const clickId = outcome.kind === 'launch_view' ? (resuming ?? uuid()) : undefined;
  const recording =
    record && !resuming
      ? recordInBackground(input, clickRequestOf(input, record, outcome.kind, resolvedOf(outcome), clickId), outcome.kind === 'launch_view' && !isHead)
      : Promise.resolve();

  const response = ((): ApiResult => {
    switch (outcome.kind) {
      case 'not_found':
        return outcome.location ? redirectTo(outcome.location) : statusPage(404);
      case 'expired':
        return outcome.location ? redirectTo(outcome.location) : statusPage(410);
      case 'password':
        return passwordPage({ status: 200, key });
      case 'preview':
        return previewPage({
          title: record!.title,
          socialPreview: record!.socialPreview,
          shortLink: `${request.origin}/${key}`,
          destination: outcome.destination,
        });
      case 'launch_view': {
        const common = { platform: platform!, origin: request.origin, key, clickId: clickId!, app: app!, destination: outcome.destination };
        return launchViewPage({
          title: record!.title,
          appName: app!.name,
          key,
          clickId: clickId!,
          openUrl: openInAppUrl({ ...common, mode: 'open' }),
          autoOpenUrl: resuming ? null : openInAppUrl({ ...common, mode: 'auto' }),
          destination: outcome.destination,
        });
      }
      case 'redirect':
        return redirectTo(outcome.destination, input.unlocked ? 303 : 302);
    }
  })();
  await recording;
  return response;
};
