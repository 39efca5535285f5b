import type { AuthContext } from '@shared/auth/credential';
import type { ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import type { FirstOpenBody } from './client-schemas';
import { firstOpenRepository } from './first-open-repository';
import { matchOpen } from './first-open';
import { isMatchGuaranteed, type MatchType } from './match-attribution';

/** DeferredDeepLinkResponse of the client API plus `matchType` and `matchGuaranteed` (see FirstOpenResponse). */
export interface DeferredDeepLinkResponse {
  matched: boolean;
  matchType: MatchType | null;
  matchGuaranteed: boolean;
  deferredDeepLink: ClientLinkPayload | null;
}

/**
 * The link a fresh install should open, by the same matching as first-open. Records no event.
 * With an `installId` the matched click is claimed for that install (its first-open then gets
 * the same click, and no other install can take it); without one the match only looks and
 * never returns a click another install claimed. An install that already had its first open
 * gets that open's match, so both agree.
 */
export const findDeferredDeepLink = async (
  auth: AuthContext,
  body: FirstOpenBody,
  request: ClientRequestInfo,
  at = new Date(),
): Promise<DeferredDeepLinkResponse> => {
  const opened =
    body.installId !== undefined ? await firstOpenRepository.find(auth.workspaceId, body.installId) : undefined;
  if (opened) {
    return {
      matched: opened.matched,
      matchType: opened.matchType,
      matchGuaranteed: isMatchGuaranteed(opened.matchType),
      deferredDeepLink: opened.deferredDeepLink,
    };
  }
  const { match } = await matchOpen(auth, body, request, at, body.installId ?? null);
  const matchType = match?.matchType ?? null;
  return {
    matched: match !== null,
    matchType,
    matchGuaranteed: isMatchGuaranteed(matchType),
    deferredDeepLink: match?.record.link ?? null,
  };
};
