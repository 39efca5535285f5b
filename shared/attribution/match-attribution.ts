import type { PublishableRestrictions } from '@shared/auth/credential';
import { attributionRepository, type AttributionRecord } from './attribution-repository';
import type { ClientRequestInfo } from './client-request';
import { deviceFingerprint } from './fingerprint';

export type MatchType = 'deterministic' | 'probabilistic';

export interface AttributionMatch {
  record: AttributionRecord;
  matchType: MatchType;
}

/** Branch's `+match_guaranteed`: only a deterministic match (the device holds the click's id) is certain. */
export const isMatchGuaranteed = (matchType: MatchType | null): boolean => matchType === 'deterministic';

export interface MatchQuery {
  workspaceId: string;
  attributionId?: string;
  clickId?: string;
  /** When the request names a link, only clicks on that link match. */
  linkId?: string;
}

/**
 * The device platform of an app request: the key's platform for Android and iOS keys (an app's
 * HTTP client often has a bare user agent), else what the user agent says.
 */
export const devicePlatformOf = (key: PublishableRestrictions | null, request: ClientRequestInfo): string =>
  key?.platform === 'android' || key?.platform === 'ios' ? key.platform : request.client.platform;

/**
 * Matching order: deterministic first (`attributionId`, then `clickId`), then
 * probabilistic: the same fingerprint (salted hash of the viewer's network and platform, see
 * fingerprint.ts) within 2 hours before `at`, newest unclaimed click wins. Only the caller's
 * workspace's live records.
 *
 * `claimant` (the install id, else the open's id) claims the matched click with a conditional
 * write, so two installs behind one IP never take the same click: a probabilistic candidate
 * another install claimed first is skipped. A deterministic match still holds (the device
 * proves the click) and claims the click when it is free. Without a claimant the match only
 * looks (deferred-deep-link without installId): it never returns a claimed click and claims
 * nothing.
 */
export const matchAttribution = async (
  query: MatchQuery,
  device: { ip: string | null; platform: string },
  at: Date,
  claimant: string | null,
): Promise<AttributionMatch | null> => {
  const fits = (record: AttributionRecord | undefined): record is AttributionRecord =>
    record !== undefined &&
    record.workspaceId === query.workspaceId &&
    (query.linkId === undefined || record.linkId === query.linkId);

  const deterministic = async (record: AttributionRecord): Promise<AttributionMatch> => {
    if (claimant) await attributionRepository.claim(record, claimant, at);
    return { record, matchType: 'deterministic' };
  };
  if (query.attributionId !== undefined) {
    const record = await attributionRepository.findByAttributionId(query.attributionId, at);
    if (fits(record)) return deterministic(record);
  }
  if (query.clickId !== undefined) {
    const record = await attributionRepository.findByClickId(query.clickId, at);
    if (fits(record)) return deterministic(record);
  }
  const fingerprint = await deviceFingerprint(device);
  if (!fingerprint) return null;
  const candidates = await attributionRepository.recentByFingerprint(query.workspaceId, fingerprint, at);
  for (const candidate of candidates) {
    if (!fits(candidate)) continue;
    if (candidate.claimedBy && candidate.claimedBy !== claimant) continue;
    if (claimant === null || (await attributionRepository.claim(candidate, claimant, at))) {
      return { record: candidate, matchType: 'probabilistic' };
    }
  }
  return null;
};
