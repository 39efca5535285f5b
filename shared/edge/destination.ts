import type { Platform } from '@shared/clicks/user-agent';
import type { Tracking } from '@shared/links/link-record';
import type { RedirectRecord } from '@shared/links/redirect-record';

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
  'url' | 'iosOverrideUrl' | 'androidOverrideUrl' | 'desktopOverrideUrl' | 'geo' | 'tracking'
>;

/**
 * Where a click goes: the platform's override when set, else the URL for
 * the viewer's country in `geo`, else the link's URL; then the tracking parameters. The edge,
 * the client click API and resolve all answer with this.
 */
export const destinationFor = (
  record: DestinationFields,
  platform: Platform,
  country: string | null = null,
): string => {
  const override =
    platform === 'ios'
      ? record.iosOverrideUrl
      : platform === 'android'
        ? record.androidOverrideUrl
        : platform === 'desktop'
          ? record.desktopOverrideUrl
          : null;
  const geo = country && record.geo && Object.hasOwn(record.geo, country) ? record.geo[country] : undefined;
  return withTracking(override || geo || record.url, record.tracking);
};
