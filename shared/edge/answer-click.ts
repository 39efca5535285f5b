import { visitorIdFor } from '@shared/clicks/visitor-id';
import { afterResponse } from '@shared/http/after-response';
import type { ApiResult } from '@shared/http/api-types';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { getAppCached } from './app-links';
import { conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import { log } from '@shared/util/logger';
import { appIdToRead, decideClick, outcomeOf, type ClickFacts } from './click-decision';
import { recordClickOf } from './click-recording';
import { renderClick } from './click-response';
import { conversionsWanted, type ConversionSigning } from './conversion-token';
import type { EdgeOutcome } from './edge-outcome';
import type { EdgeRequest } from './edge-request';
import type { ResolvedHost } from './host-resolver';
import { visitorCookieHeader } from './visitor-cookie';

export interface ClickInput {
  readonly request: EdgeRequest;
  readonly host: ResolvedHost;
  readonly key: string;
  readonly record: RedirectRecord | undefined;
  /** The right password was just given (POST). */
  readonly unlocked: boolean;
  readonly requestId: string;
  readonly now?: Date;
}

/**
 * The key an A/B-test variant is hashed from, only for a link with variants: the visitor
 * cookie's value, else the click's visitor id (which the answer then puts in the cookie).
 */
export const visitorKeyOf = async (
  request: EdgeRequest,
  record: RedirectRecord | undefined,
  now: Date,
): Promise<ClickFacts['visitorKey']> => {
  if (!record?.variants?.length) return null;
  if (request.visitorCookie) return { key: request.visitorCookie, fromCookie: true };
  return { key: await visitorIdFor(request.ip, request.userAgent, now), fromCookie: false };
};

/** The deep-link app a launch view of this outcome needs (cached in memory), else undefined. */
const appFor = (facts: ClickFacts, appId: string | null): Promise<DeepLinkAppRecord | undefined> =>
  appId && facts.record ? getAppCached(facts.record.workspaceId, appId) : Promise.resolve(undefined);

/**
 * The workspace's click-token signing when the click's conversions are tracked (cached in memory:
 * no table read per click). A failed read costs the click its token, never its redirect.
 */
const conversionsFor = async (
  facts: ClickFacts,
  outcome: EdgeOutcome,
  requestId: string,
): Promise<ConversionSigning | undefined> => {
  if (!facts.record || !conversionsWanted(facts, outcome)) return undefined;
  try {
    const settings = await conversionSettingsRepository.find(facts.record.workspaceId);
    if (!settings)
      log('error', 'conversions tracked but the workspace has no settings: redirect without click token', {
        requestId,
        workspaceId: facts.record.workspaceId,
      });
    return settings;
  } catch (error) {
    log('error', 'conversion settings not read: redirect without click token', {
      requestId,
      error: String(error),
      workspaceId: facts.record.workspaceId,
    });
    return undefined;
  }
};

/**
 * The answer to a click on a known host, top to bottom: the facts (the parsed request, what was
 * read), the outcome and the app a launch view needs, the decision, its page or redirect; the
 * click is recorded after the response.
 */
export const answerClick = async ({ requestId, now = new Date(), ...read }: ClickInput): Promise<ApiResult> => {
  const base: ClickFacts = { ...read, now, visitorKey: await visitorKeyOf(read.request, read.record, now) };
  const outcome = outcomeOf(base);
  const [app, conversions] = await Promise.all([
    appFor(base, appIdToRead(outcome, base.record)),
    conversionsFor(base, outcome, requestId),
  ]);
  const facts: ClickFacts = { ...base, conversions };
  const { answer, recording, visitorCookie } = decideClick(facts, outcome, app);
  const rendered = renderClick(facts.request, facts.key, answer);
  const response = visitorCookie
    ? {
        ...rendered,
        cookies: [
          ...(rendered.cookies ?? []),
          visitorCookieHeader(visitorCookie, facts.request.origin.startsWith('https:')),
        ],
      }
    : rendered;
  if (recording) {
    const record = () => recordClickOf(facts, recording, requestId);
    // The visitor does not wait for the recording: the edge handler sends the response, then runs
    // and awaits it. Called outside an edge invocation (a unit test), the answer waits for it.
    if (!afterResponse(record)) await record();
  }
  return response;
};
