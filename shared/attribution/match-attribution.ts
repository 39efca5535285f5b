import type { PublishableRestrictions } from '@shared/auth/credential';
import { attributionRepository, type AttributionRecord } from './attribution-repository';
import type { ClientRequestInfo } from './client-request';
import { deviceFingerprint } from './fingerprint';

export type MatchType = 'deterministic' | 'probabilistic';

export interface AttributionMatch {
  record: AttributionRecord;
  matchType: MatchType;
}

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
 * DESIGN.md section 7: deterministic first (`attributionId`, then `clickId`), then
 * probabilistic: the same fingerprint (salted hash of client IP, platform, OS major version)
 * within 2 hours before `at`, newest click wins. Only the caller's workspace's live records.
 */
export const matchAttribution = async (
  query: MatchQuery,
  device: { ip: string | null; platform: string; osMajor: string | null },
  at: Date,
): Promise<AttributionMatch | null> => {
  const fits = (record: AttributionRecord | undefined): record is AttributionRecord =>
    record !== undefined && record.workspaceId === query.workspaceId && (query.linkId === undefined || record.linkId === query.linkId);

  if (query.attributionId !== undefined) {
    const record = await attributionRepository.findByAttributionId(query.attributionId, at);
    if (fits(record)) return { record, matchType: 'deterministic' };
  }
  if (query.clickId !== undefined) {
    const record = await attributionRepository.findByClickId(query.clickId, at);
    if (fits(record)) return { record, matchType: 'deterministic' };
  }
  const fingerprint = await deviceFingerprint(device);
  if (!fingerprint) return null;
  const candidates = await attributionRepository.recentByFingerprint(query.workspaceId, fingerprint, at);
  const newest = candidates.find(fits);
  return newest ? { record: newest, matchType: 'probabilistic' } : null;
};
