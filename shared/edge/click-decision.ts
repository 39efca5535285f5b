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
}

/** The whole decision of one click: the answer, and what is recorded (null: nothing). */
export interface ClickDecision {
  readonly answer: ClickAnswer;
  readonly recording: ClickRecording | null;
}

/** A human, not a crawler and not a HEAD request (which is never a human click). */
export const isHuman = (request: EdgeRequest): boolean => !request.client.isBot && request.method !== 'HEAD';

/** The edge's outcome rules (edge-outcome.ts) applied to the click's facts. */
export const outcomeOf = ({ host, record, request, unlocked, now }: ClickFacts): EdgeOutcome =>
  decideOutcome({ host, record, client: request.client, unlocked, now, country: request.country });

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
  };
};

/**
 * The click's decision, a pipeline of pure steps: the edge's outcome rules (`decideOutcome`,
 * given as `outcome`), then the ids of an attributable tap, then the answer (a launch view needs
 * its app, read beforehand: `appIdToRead`), then what is recorded. A new rule that changes where a click goes (a
 * redirect rule, a variant) is a step on the outcome before the answer; one that adds to what is
 * recorded is a step on the recording. Web conversion tracking is a step on the answer: its
 * redirect gets the signed click token (conversion-token.ts), the recording its click id (the
 * destination recorded stays the one without the token). `newId` makes the ids (random by default).
 */
export const decideClick = (
  facts: ClickFacts,
  outcome: EdgeOutcome,
  app: DeepLinkAppRecord | undefined,
  newId: () => string = uuid,
): ClickDecision => {
  const tap = tapIdsOf(facts, outcome.kind, newId);
  const answer = answerOf(facts, outcome, app, tap, newId);
  const tracked = withClickToken(answer, facts.record, facts.conversions, facts.now, () => tap?.clickId ?? newId());
  return { answer: tracked.answer, recording: recordingOf(facts, answer, tap, tracked.clickId) };
};
