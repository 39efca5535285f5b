import type { TapIds } from '@shared/attribution/edge-attribution';
import type { ClickRequest } from '@shared/clicks/record-click';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { uuid } from '@shared/util/ids';
import { withClickToken, type ConversionSigning } from './conversion-token';
import { decideOutcome, type EdgeOutcome } from './edge-outcome';
import type { EdgeRequest } from './edge-request';
import type { ResolvedHost } from './host-resolver';

/** What a click on a known host is decided from: the parsed request and what was read for it. */
export interface ClickFacts {
  readonly request: EdgeRequest;
  readonly host: ResolvedHost;
  readonly key: string;
  readonly record: RedirectRecord | undefined;
  /** The right password was just given (POST). */
  readonly unlocked: boolean;
  /** When the visitor is answered: the click's timestamp, though it is written after. */
  readonly now: Date;
  /**
   * What an A/B-test variant is hashed from: the visitor cookie's value, else the click's visitor
   * id (`fromCookie: false`: the answer sets the cookie). Null: the link has no variants.
   */
  readonly visitorKey?: { readonly key: string; readonly fromCookie: boolean } | null;
  /** The workspace's click-token signing, read when the click's conversions are tracked (`conversionsWanted`). */
  readonly conversions?: ConversionSigning | undefined;
}

export type AppPlatform = 'ios' | 'android';

/** A launch view the click gets: the link's app has the visitor's phone platform. */
export interface LaunchView {
  readonly link: RedirectRecord;
  readonly app: DeepLinkAppRecord;
  readonly platform: AppPlatform;
  readonly clickId: string;
}

/** What the visitor is answered: the edge outcome with what its page needs. */
export type ClickAnswer =
  | { readonly kind: 'not_found' | 'expired'; readonly location: string | null }
  | { readonly kind: 'password' }
  | { readonly kind: 'preview'; readonly destination: string; readonly link: RedirectRecord }
  | { readonly kind: 'launch_view'; readonly destination: string; readonly launch: LaunchView }
  | { readonly kind: 'redirect'; readonly destination: string; readonly status: 302 | 303 };

/** What is recorded after the response: the click (and the launch view's impression, the tap's attribution). */
export interface ClickRecording {
  readonly link: RedirectRecord;
  readonly responseKind: EdgeOutcome['kind'];
  readonly resolvedDestinationUrl: string | null;
  readonly ids: ClickRequest['ids'];
  /** A launch view shown to a GET: its impression event goes with the click. */
  readonly impression: boolean;
  /** A human tap on a live deep link: its attribution record. */
  readonly tap: { readonly ids: TapIds; readonly platform: string } | null;
  /** The redirect rule or A/B-test variant that chose the destination (null: none did). */
  readonly decidedBy: { readonly ruleId: string | null; readonly variantId: string | null };
}

/** The whole decision of one click: the answer, and what is recorded (null: nothing). */
export interface ClickDecision {
  readonly answer: ClickAnswer;
  readonly recording: ClickRecording | null;
  /** The visitor key the answer gives the visitor cookie: a variant decided and the visitor had no cookie. */
  readonly visitorCookie: string | null;
}

/** A human, not a crawler and not a HEAD request (which is never a human click). */
export const isHuman = (request: EdgeRequest): boolean => !request.client.isBot && request.method !== 'HEAD';

/** The edge's outcome rules (edge-outcome.ts) applied to the click's facts. */
export const outcomeOf = ({ host, record, request, unlocked, now, visitorKey }: ClickFacts): EdgeOutcome =>
  decideOutcome({
    host,
    record,
    client: request.client,
    unlocked,
    now,
    country: request.country,
    visitor: {
      acceptLanguage: request.acceptLanguage,
      query: request.query,
      ip: request.ip,
      visitorKey: visitorKey?.key ?? null,
    },
  });

/** The rule or variant an outcome's destination came from. */
const decidedByOf = (outcome: EdgeOutcome): ClickRecording['decidedBy'] => ({
  ruleId: ('ruleId' in outcome ? outcome.ruleId : null) ?? null,
  variantId: ('variantId' in outcome ? outcome.variantId : null) ?? null,
});

/** The app a launch view needs read before the decision: only a launch view of a deep link with an app. */
export const appIdToRead = (outcome: EdgeOutcome, record: RedirectRecord | undefined): string | null =>
  outcome.kind === 'launch_view' && record?.deepLinkAppId ? record.deepLinkAppId : null;

const phonePlatformOf = (request: EdgeRequest): AppPlatform | null =>
  request.client.platform === 'ios' || request.client.platform === 'android' ? request.client.platform : null;

/**
 * Every human tap on a live deep link is attributable: its click id goes on the launch view's
 * links, into the Play Store referrer and the pasteboard hand-off. (A launch view that falls back
 * to a redirect stays attributable: both answers send the visitor on.)
 */
const tapIdsOf = (facts: ClickFacts, kind: EdgeOutcome['kind'], newId: () => string): TapIds | null =>
  isHuman(facts.request) && facts.record?.linkType === 'DEEPLINK' && (kind === 'launch_view' || kind === 'redirect')
    ? { clickId: newId(), attributionId: newId(), sessionId: newId() }
    : null;

/** The launch view, kept only with a record, its app and a phone platform the app has; null: a redirect instead. */
const launchViewOf = (
  facts: ClickFacts,
  app: DeepLinkAppRecord | undefined,
  tap: TapIds | null,
  newId: () => string,
): LaunchView | null => {
  const platform = phonePlatformOf(facts.request);
  if (!facts.record || !app || !platform || !app[platform]) return null;
  return { link: facts.record, app, platform, clickId: tap?.clickId ?? newId() };
};

/** The answer of an outcome: a launch view without its app or platform becomes a redirect. */
const answerOf = (
  facts: ClickFacts,
  outcome: EdgeOutcome,
  app: DeepLinkAppRecord | undefined,
  tap: TapIds | null,
  newId: () => string,
): ClickAnswer => {
  const redirect = (destination: string): ClickAnswer => ({
    kind: 'redirect',
    destination,
    status: facts.unlocked ? 303 : 302,
  });
  switch (outcome.kind) {
    case 'launch_view': {
      const launch = launchViewOf(facts, app, tap, newId);
      return launch ? { kind: 'launch_view', destination: outcome.destination, launch } : redirect(outcome.destination);
    }
    case 'preview':
      // decideOutcome previews only a record.
      return facts.record
        ? { kind: 'preview', destination: outcome.destination, link: facts.record }
        : redirect(outcome.destination);
    case 'redirect':
      return redirect(outcome.destination);
    default:
      return outcome;
  }
};

const resolvedOf = (answer: ClickAnswer): string | null =>
  'destination' in answer ? answer.destination : 'location' in answer ? answer.location : null;

/**
 * What is recorded: every answer on a link is a click, except a human at the password form, who
 * has not clicked through yet (the click is counted when the right password opens the link).
 */
const recordingOf = (
  facts: ClickFacts,
  answer: ClickAnswer,
  tap: TapIds | null,
  decidedBy: ClickRecording['decidedBy'],
  tokenClickId: string | null,
): ClickRecording | null => {
  const { record, request } = facts;
  if (!record || (answer.kind === 'password' && isHuman(request))) return null;
  const clickId = answer.kind === 'launch_view' ? answer.launch.clickId : (tokenClickId ?? undefined);
  return {
    link: record,
    responseKind: answer.kind,
    resolvedDestinationUrl: resolvedOf(answer),
    ids: tap ?? (clickId ? { clickId } : undefined),
    impression: answer.kind === 'launch_view' && request.method !== 'HEAD',
    tap: tap && { ids: tap, platform: request.client.platform },
    decidedBy,
  };
};

/**
 * The click's decision, a pipeline of pure steps: the edge's outcome rules (`decideOutcome`,
 * given as `outcome`), then the ids of an attributable tap, then the answer (a launch view needs
 * its app, read beforehand: `appIdToRead`), then what is recorded. Where a click goes (redirect
 * rules, platform overrides, geo, A/B-test variants, url) is decided inside the outcome
 * (`chooseDestination`); the rule or variant that decided is recorded, and a variant picked
 * without the visitor cookie sets it. Web conversion tracking is a step on the answer: its
 * redirect gets the signed click token (conversion-token.ts), the recording its click id (the
 * destination recorded stays the one without the token). A step that adds to what is recorded
 * is a step on the recording. `newId` makes the ids (random by default).
 */
export const decideClick = (
  facts: ClickFacts,
  outcome: EdgeOutcome,
  app: DeepLinkAppRecord | undefined,
  newId: () => string = uuid,
): ClickDecision => {
  const tap = tapIdsOf(facts, outcome.kind, newId);
  const answer = answerOf(facts, outcome, app, tap, newId);
  const decidedBy = decidedByOf(outcome);
  const visitorCookie =
    decidedBy.variantId !== null && facts.visitorKey && !facts.visitorKey.fromCookie ? facts.visitorKey.key : null;
  const tracked = withClickToken(answer, facts.record, facts.conversions, facts.now, () => tap?.clickId ?? newId());
  return {
    answer: tracked.answer,
    recording: recordingOf(facts, answer, tap, decidedBy, tracked.clickId),
    visitorCookie,
  };
};
