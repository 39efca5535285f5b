import { signClickToken } from '@shared/conversions/click-token';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { EdgeOutcome } from './edge-outcome';
import type { EdgeRequest } from './edge-request';
import type { ResolvedHost } from './host-resolver';

/** What signing a click token needs: the workspace's parameter name and HMAC secret (cached, conversion-settings.ts). */
export interface ConversionSigning {
  readonly param: string;
  readonly secret: string;
}

interface TrackedFacts {
  readonly request: Pick<EdgeRequest, 'method' | 'client'>;
  readonly host: Pick<ResolvedHost, 'trackConversions'>;
  readonly record: Pick<RedirectRecord, 'trackConversions'> | undefined;
}

/**
 * A click gets a token when it is a human's redirect (not a bot, not HEAD) on a link whose
 * conversions are tracked: the link's `trackConversions`, or its domain's setting. Then the
 * workspace's conversion settings are read (cached) before the decision.
 */
export const conversionsWanted = (facts: TrackedFacts, outcome: EdgeOutcome): boolean =>
  outcome.kind === 'redirect' &&
  !facts.request.client.isBot &&
  facts.request.method !== 'HEAD' &&
  (facts.record?.trackConversions === true || facts.host.trackConversions === true);

/** A web destination: http(s) only (an app scheme or a store gets no token). */
const webUrlOf = (destination: string): URL | null => {
  try {
    const url = new URL(destination);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
};

/**
 * The decision's conversion step: a redirect to a web destination gets the signed click token
 * (click id, link id, workspace, issued at) in the workspace's parameter, replacing one the
 * destination already has; the link's tracking parameters stay as they are. Returns the answer
 * and the click id the recording carries (null: no token, the answer unchanged).
 */
export const withClickToken = <A extends { readonly kind: string }>(
  answer: A,
  link: Pick<RedirectRecord, 'linkId' | 'workspaceId'> | undefined,
  signing: ConversionSigning | undefined,
  now: Date,
  clickId: () => string,
): { answer: A; clickId: string | null } => {
  if (answer.kind !== 'redirect' || !signing || !link || !('destination' in answer)) return { answer, clickId: null };
  const url = typeof answer.destination === 'string' ? webUrlOf(answer.destination) : null;
  if (!url) return { answer, clickId: null };
  const id = clickId();
  const token = signClickToken(
    { clickId: id, linkId: link.linkId, workspaceId: link.workspaceId, issuedAt: Math.floor(now.getTime() / 1000) },
    signing.secret,
  );
  url.searchParams.set(signing.param, token);
  return { answer: { ...answer, destination: url.href }, clickId: id };
};
