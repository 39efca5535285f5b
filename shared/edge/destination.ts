import type { Platform } from '@shared/clicks/user-agent';
import type { Tracking } from '@shared/links/link-record';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { matchRule, pickVariant } from './redirect-rules';

/** Tracking fields appended to the destination, and the query parameter each becomes. */
const TRACKING_PARAMS: ReadonlyArray<[keyof NonNullable<Tracking>, string]> = [
  ['utmSource', 'utm_source'],
  ['utmMedium', 'utm_medium'],
  ['utmCampaign', 'utm_campaign'],
  ['utmTerm', 'utm_term'],
  ['utmContent', 'utm_content'],
  ['ref', 'ref'],
];

/**
 * Appends the link's tracking parameters to a URL. Parameters already in the URL are kept as
 * they are (the destination's own value wins); empty values are skipped.
 */
export const withTracking = (url: string, tracking: Tracking | null | undefined): string => {
  if (!tracking) return url;
  const params: Array<[string, string]> = [];
  for (const [field, param] of TRACKING_PARAMS) {
    const value = tracking[field];
    if (typeof value === 'string' && value !== '') params.push([param, value]);
  }
  for (const [param, value] of Object.entries(tracking.customParams ?? {})) {
    if (param !== '' && typeof value === 'string') params.push([param, value]);
  }
  if (params.length === 0) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  for (const [param, value] of params) if (!parsed.searchParams.has(param)) parsed.searchParams.append(param, value);
  return parsed.toString();
};

type DestinationFields = Pick<
  RedirectRecord,
  | 'linkId'
  | 'url'
  | 'iosOverrideUrl'
  | 'androidOverrideUrl'
  | 'desktopOverrideUrl'
  | 'geo'
  | 'tracking'
  | 'rules'
  | 'variants'
>;

/** What a click's destination is chosen from besides the link: the visitor and the click's time. */
export interface DestinationVisitor {
  readonly platform: Platform;
  readonly country: string | null;
  readonly acceptLanguage: string | null;
  readonly query: Readonly<URLSearchParams>;
  readonly ip: string | null;
  readonly now: Date;
  /** What the variant is hashed from (the edge's visitor cookie, else the visitor id); null: no variant. */
  readonly visitorKey: string | null;
}

/** A click's destination and the rule or variant that chose it (null: none did). */
export interface Destination {
  readonly url: string;
  readonly ruleId: string | null;
  readonly variantId: string | null;
}

/** A visitor known only by platform and country (no language, query, address or visitor key). */
export const visitorOf = (platform: Platform, country: string | null = null, now = new Date()): DestinationVisitor => ({
  platform,
  country,
  acceptLanguage: null,
  query: new URLSearchParams(),
  ip: null,
  now,
  visitorKey: null,
});

const overrideOf = (record: DestinationFields, platform: Platform): string | null =>
  platform === 'ios'
    ? record.iosOverrideUrl
    : platform === 'android'
      ? record.androidOverrideUrl
      : platform === 'desktop'
        ? record.desktopOverrideUrl
        : null;

/**
 * Where a click goes, in order: the first redirect rule whose conditions all match, else the
 * platform's override when set, else the URL for the viewer's country in `geo`, else the A/B
 * test's variant of this visitor, else the link's URL; then the tracking parameters on whichever
 * won. The edge (redirect, preview, launch view), the client click API and resolve all answer
 * with this.
 */
export const chooseDestination = (record: DestinationFields, visitor: DestinationVisitor): Destination => {
  const chosen = (url: string, ruleId: string | null = null, variantId: string | null = null): Destination => ({
    url: withTracking(url, record.tracking),
    ruleId,
    variantId,
  });
  const rule = matchRule(record.rules, {
    acceptLanguage: visitor.acceptLanguage,
    query: visitor.query,
    ip: visitor.ip,
    country: visitor.country,
    client: { platform: visitor.platform },
    now: visitor.now,
  });
  if (rule) return chosen(rule.url, rule.id);
  const override = overrideOf(record, visitor.platform);
  if (override) return chosen(override);
  const { country } = visitor;
  const geo = country && record.geo && Object.hasOwn(record.geo, country) ? record.geo[country] : undefined;
  if (geo) return chosen(geo);
  const variant =
    record.variants && visitor.visitorKey !== null
      ? pickVariant(record.variants, record.linkId, visitor.visitorKey)
      : null;
  if (variant) return chosen(variant.url, null, variant.id);
  return chosen(record.url);
};

/** The destination of a visitor known only by platform and country (`chooseDestination` with `visitorOf`). */
export const destinationFor = (record: DestinationFields, platform: Platform, country: string | null = null): string =>
  chooseDestination(record, visitorOf(platform, country)).url;
