import InAppSpy from 'inapp-spy';
import { recordEdgeAttribution, type TapIds } from '@shared/attribution/edge-attribution';
import { buildClickEvent, type ClickRequest } from '@shared/clicks/record-click';
import { clickRecordBudgetMs, recordClickWithin } from '@shared/clicks/record-click-within';
import type { EventRecord } from '@shared/events/event-record';
import { parseUserAgent } from '@shared/clicks/user-agent';
import { afterResponse } from '@shared/http/after-response';
import type { ApiResult } from '@shared/http/api-types';
import { headerUrl } from '@shared/http/header-url';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { uuid } from '@shared/util/ids';
import { required } from '@shared/util/required';
import { withinBudget } from '@shared/util/within-budget';
import { log } from '@shared/util/logger';
import { countClickNotRecorded } from '@shared/util/metrics';
import { isHttpUrl } from '@shared/links/short-link';
import { getAppCached, openInAppUrl, pasteboardHandoff } from './app-links';
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
  headers: {
    Location: headerUrl(location),
    'Cache-Control': 'private, max-age=0',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  },
});

export interface ClickInput {
  request: EdgeRequest;
  host: ResolvedHost;
  key: string;
  record: RedirectRecord | undefined;
  /** The right password was just given (POST). */
  unlocked: boolean;
  requestId: string;
  now?: Date;
}

const clickRequestOf = (
  input: ClickInput,
  record: RedirectRecord,
  responseKind: string,
  resolved: string | null,
  ids?: ClickRequest['ids'],
): ClickRequest => ({
  link: { ...record, domain: input.host.hostname, key: input.key },
  userAgent: input.request.userAgent,
  ip: input.request.ip,
  country: input.request.country,
  referrer: input.request.referrer,
  resolvedDestinationUrl: resolved,
  responseKind,
  forceBot: input.request.method === 'HEAD',
  ids,
  at: input.now,
});

/**
 * Records the click (counters + `click` event, plus the launch view's impression and, for a
 * human tap on a deep link, its attribution record). It starts once the visitor has the
 * response, in the same invocation (`afterResponse`,
 * shared/http/after-response.ts; docs/edge.md). It is bounded by CLICK_RECORD_BUDGET_MS
 * (record-click-within.ts), well inside the function's timeout: a counter or event not written
 * in time, or failed, is logged as a replayable record (click-replay.ts); an attribution record
 * is logged as not recorded.
 */
const recordInBackground = async (
  input: ClickInput,
  click: ClickRequest,
  impression: boolean,
  tap: { ids: TapIds; platform: string } | null,
): Promise<void> => {
  const attribution = tap ? recordTapWithin(input, click, tap) : Promise.resolve();
  let recorded: Awaited<ReturnType<typeof buildClickEvent>>;
  try {
    recorded = await buildClickEvent(click);
  } catch (error) {
    countClickNotRecorded();
    log('error', 'edge click not recorded', {
      requestId: input.requestId,
      error: String(error),
      click: { ...click, ip: undefined },
    });
    await attribution;
    return;
  }
  const events: EventRecord[] = impression
    ? [recorded.event, { ...recorded.event, eventId: uuid(), eventType: 'launch_view_impression' }]
    : [recorded.event];
  await Promise.all([recordClickWithin(recorded, events, { requestId: input.requestId }), attribution]);
};

/** The tap's attribution record, waited for at most CLICK_RECORD_BUDGET_MS (then the write is aborted); a failure or timeout is logged. */
const recordTapWithin = async (
  input: ClickInput,
  click: ClickRequest,
  tap: { ids: TapIds; platform: string },
): Promise<void> => {
  const { record, host, key, request } = input;
  const recorded = await withinBudget(
    (signal) =>
      recordEdgeAttribution(
        {
          // A tap is only attributed on a deep link, so there is a record.
          record: required(record, 'the record of an attributed tap'),
          domain: host.hostname,
          key,
          ids: tap.ids,
          ip: request.ip,
          platform: tap.platform,
          at: click.at ?? new Date(),
        },
        signal,
      ),
    clickRecordBudgetMs(),
  );
  if (!recorded.done)
    log('error', 'edge tap attribution not recorded', {
      requestId: input.requestId,
      error: recorded.reason,
      linkId: record?.linkId,
      ids: tap.ids,
    });
};

/** The launch view's heading: the link's title unless it is only a URL (the default title is the short link). */
const headingOf = (title: string | null | undefined, appName: string): string =>
  title && title.trim() !== '' && !isHttpUrl(title) ? title : appName;

/**
 * The in-app browser a user agent belongs to, or null: detected by inapp-spy (a maintained list:
 * Instagram, Facebook, TikTok, Snapchat, LinkedIn, WeChat, Line, Threads, ...); named by our
 * own browser name where we have one (inapp-spy names Facebook's Android browser "Messenger").
 */
const inAppBrowserOf = (userAgent: string | null, browser: string | null): string | null => {
  if (!userAgent) return null;
  const spy = InAppSpy({ ua: userAgent });
  if (!spy.isInApp) return null;
  return browser && IN_APP_NAMES.has(browser) ? browser : (spy.appName ?? 'in-app browser');
};
const IN_APP_NAMES = new Set(['Facebook', 'Instagram', 'TikTok', 'Snapchat', 'LinkedIn', 'WeChat']);

const resolvedOf = (outcome: EdgeOutcome): string | null =>
  'destination' in outcome ? outcome.destination : 'location' in outcome ? outcome.location : null;

/** The answer to a click on a known host: the outcome's page or redirect; the click is recorded after the response. */
export const answerClick = async (input: ClickInput): Promise<ApiResult> => {
  const { request, host, key, record } = input;
  const now = input.now ?? new Date();
  const client = parseUserAgent(request.userAgent);
  let outcome = decideOutcome({ host, record, client, unlocked: input.unlocked, now, country: request.country });
  const isHead = request.method === 'HEAD';
  const human = !client.isBot && !isHead;

  // A human at the password form has not clicked through yet: the click is counted when the
  // right password opens the link.
  if (outcome.kind === 'password' && human) {
    return passwordPage({ status: 200, key });
  }

  const app =
    outcome.kind === 'launch_view' && record?.deepLinkAppId
      ? await getAppCached(record.workspaceId, record.deepLinkAppId)
      : undefined;
  const platform = client.platform === 'ios' || client.platform === 'android' ? client.platform : null;
  if (outcome.kind === 'launch_view' && (!app || !platform || !app[platform]))
    outcome = { kind: 'redirect', destination: outcome.destination };

  // Every human tap on a live deep link is attributable: its click id goes on the
  // launch view's links, into the Play Store referrer and the pasteboard hand-off.
  const attributable =
    human && record?.linkType === 'DEEPLINK' && (outcome.kind === 'launch_view' || outcome.kind === 'redirect');
  const tap: TapIds | null = attributable ? { clickId: uuid(), attributionId: uuid(), sessionId: uuid() } : null;
  const clickId = tap?.clickId ?? (outcome.kind === 'launch_view' ? uuid() : undefined);
  const ids = tap ?? (clickId ? { clickId } : undefined);
  // Timestamped now, when the visitor is answered, though written after.
  const click = record ? clickRequestOf({ ...input, now }, record, outcome.kind, resolvedOf(outcome), ids) : null;
  const recording = () =>
    click
      ? recordInBackground(
          input,
          click,
          outcome.kind === 'launch_view' && !isHead,
          tap && { ids: tap, platform: client.platform },
        )
      : Promise.resolve();

  const response = ((): ApiResult => {
    switch (outcome.kind) {
      case 'not_found':
        return outcome.location ? redirectTo(outcome.location) : statusPage(404);
      case 'expired':
        return outcome.location ? redirectTo(outcome.location) : statusPage(410);
      case 'password':
        return passwordPage({ status: 200, key });
      case 'preview': {
        const link = required(record, 'the record of a preview');
        return previewPage({
          title: link.title,
          socialPreview: link.socialPreview,
          shortLink: `${request.origin}/${key}`,
          destination: outcome.destination,
        });
      }
      case 'launch_view': {
        // A launch view is only kept above with a record, its app and a phone platform the app
        // has, and it always gets a click id.
        const link = required(record, 'the record of a launch view');
        const launchApp = required(app, 'the app of a launch view');
        const os = required(platform, 'the platform of a launch view');
        const launchClickId = required(clickId, 'the click id of a launch view');
        const inAppBrowser = inAppBrowserOf(request.userAgent, client.browser);
        return launchViewPage({
          heading: headingOf(link.title, launchApp.name),
          appName: launchApp.name,
          key,
          clickId: launchClickId,
          platform: os,
          openUrl: openInAppUrl({
            platform: os,
            origin: request.origin,
            key,
            clickId: launchClickId,
            app: launchApp,
            destination: outcome.destination,
            tracking: link.tracking,
            inAppBrowser: inAppBrowser !== null,
          }),
          destination: outcome.destination,
          inAppBrowser,
          handoff:
            os === 'ios' && launchApp.ios?.pasteboardHandoff
              ? pasteboardHandoff(request.origin, key, launchClickId)
              : null,
        });
      }
      case 'redirect':
        return redirectTo(outcome.destination, input.unlocked ? 303 : 302);
    }
  })();
  // The visitor does not wait for the recording: the edge handler sends the response, then runs
  // and awaits it. Called outside an edge invocation (a unit test), the answer waits for it.
  if (!afterResponse(recording)) await recording();
  return response;
};
