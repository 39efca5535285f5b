import type { ClientInfo } from '@shared/clicks/user-agent';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { HostRecord } from '@shared/tenancy/tenancy-types';
import { destinationFor } from './destination';

/** What the edge answers for one request; `responseKind` is also the click event's. */
export type EdgeOutcome =
  | { kind: 'not_found'; location: string | null }
  | { kind: 'expired'; location: string | null }
  | { kind: 'password' }
  | { kind: 'preview'; destination: string }
  | { kind: 'launch_view'; destination: string }
  | { kind: 'redirect'; destination: string };

export interface OutcomeInput {
  host: Pick<HostRecord, 'expiredUrl' | 'notFoundUrl'>;
  record: RedirectRecord | undefined;
  /** The user agent's classification: bots get the preview (HEAD alone does not change the answer). */
  client: ClientInfo;
  /** The visitor gave the right password (POST). */
  unlocked: boolean;
  now: Date;
  /** The viewer's country (`CloudFront-Viewer-Country`), for the link's `geo` map. */
  country?: string | null;
}

/** `expiresAt` may be absent, not only null: the record is a stored item read as is. */
export const isExpired = (record: { expiresAt?: string | null }, now: Date) =>
  record.expiresAt !== null && record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now.getTime();

/**
 * The edge's rules in order: unknown or archived -> the domain's
 * notFoundUrl else 404; expired -> the link's expiredUrl, else the domain's, else 410; password
 * (until unlocked) -> the form; bots -> the social preview; deep links on iOS / Android -> the
 * launch view; everything else -> a redirect to the destination (platform override, geo, url).
 */
export const decideOutcome = ({ host, record, client, unlocked, now, country = null }: OutcomeInput): EdgeOutcome => {
  if (!record || record.archived) return { kind: 'not_found', location: host.notFoundUrl ?? null };
  if (isExpired(record, now)) return { kind: 'expired', location: record.expiredUrl ?? host.expiredUrl ?? null };
  if (record.passwordHash && !unlocked) return { kind: 'password' };
  const destination = destinationFor(record, client.platform, country);
  // A crawler that got past the password form is sent on like anyone else (still counted as a bot).
  if (client.isBot && !unlocked) return { kind: 'preview', destination };
  if (record.linkType === 'DEEPLINK' && (client.platform === 'ios' || client.platform === 'android')) {
    return { kind: 'launch_view', destination };
  }
  return { kind: 'redirect', destination };
};
