import type { ClientInfo } from '@shared/clicks/user-agent';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { HostRecord } from '@shared/tenancy/tenancy-types';
import { chooseDestination, visitorOf, type Destination } from './destination';

/** What the edge answers for one request; `responseKind` is also the click event's. */
export type EdgeOutcome =
  | { kind: 'not_found'; location: string | null }
  | { kind: 'expired'; location: string | null }
  | { kind: 'password' }
  | ({ kind: 'preview'; destination: string } & DecidedBy)
  | ({ kind: 'launch_view'; destination: string } & DecidedBy)
  | ({ kind: 'redirect'; destination: string } & DecidedBy);

/** The redirect rule or A/B-test variant that chose a destination (absent or null: none did). */
export interface DecidedBy {
  ruleId?: string | null;
  variantId?: string | null;
}

/** What redirect rules and variants read of a request beyond the client and country. */
export interface OutcomeVisitor {
  acceptLanguage: string | null;
  query: Readonly<URLSearchParams>;
  ip: string | null;
  /** The variant's hash key (visitor cookie, else visitor id); null: no variant is picked. */
  visitorKey: string | null;
}

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
  /** The request's facts for redirect rules and variants (absent: none of them apply but time-only rules). */
  visitor?: OutcomeVisitor;
}

/** `expiresAt` may be absent, not only null: the record is a stored item read as is. */
export const isExpired = (record: { expiresAt?: string | null }, now: Date) =>
  record.expiresAt !== null && record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now.getTime();

/**
 * The edge's rules in order: unknown or archived -> the domain's
 * notFoundUrl else 404; expired -> the link's expiredUrl, else the domain's, else 410; password
 * (until unlocked) -> the form; bots -> the social preview; deep links on iOS / Android -> the
 * launch view; everything else -> a redirect to the destination (redirect rules, platform override,
 * geo, variants, url: `chooseDestination`).
 */
export const decideOutcome = ({
  host,
  record,
  client,
  unlocked,
  now,
  country = null,
  visitor,
}: OutcomeInput): EdgeOutcome => {
  if (!record || record.archived) return { kind: 'not_found', location: host.notFoundUrl ?? null };
  if (isExpired(record, now)) return { kind: 'expired', location: record.expiredUrl ?? host.expiredUrl ?? null };
  if (record.passwordHash && !unlocked) return { kind: 'password' };
  const chosen: Destination = chooseDestination(
    record,
    visitor ? { platform: client.platform, country, now, ...visitor } : visitorOf(client.platform, country, now),
  );
  const destination = chosen.url;
  // Only what a rule or variant decided is named: a link without them answers exactly as before.
  const decidedBy: DecidedBy = {
    ...(chosen.ruleId === null ? {} : { ruleId: chosen.ruleId }),
    ...(chosen.variantId === null ? {} : { variantId: chosen.variantId }),
  };
  // A crawler that got past the password form is sent on like anyone else (still counted as a bot).
  if (client.isBot && !unlocked) return { kind: 'preview', destination, ...decidedBy };
  if (record.linkType === 'DEEPLINK' && (client.platform === 'ios' || client.platform === 'android')) {
    return { kind: 'launch_view', destination, ...decidedBy };
  }
  return { kind: 'redirect', destination, ...decidedBy };
};
