import { countryCodeOf } from '@shared/geo/country-codes';

/** The header CloudFront sets on requests to the origin (add it in the origin request policy). */
export const VIEWER_COUNTRY_HEADER = 'cloudfront-viewer-country';

/**
 * The viewer's country (ISO 3166-1 alpha-2, upper case) from `CloudFront-Viewer-Country`, or
 * null when absent or not an assigned code. The one place the edge and the client API read it,
 * so trusting the header only behind the origin-verify secret is one change here.
 */
export const viewerCountry = (headers: Record<string, string | undefined> | undefined): string | null => {
  if (!headers) return null;
  let value = headers[VIEWER_COUNTRY_HEADER];
  if (value === undefined) {
    for (const [name, v] of Object.entries(headers)) if (name.toLowerCase() === VIEWER_COUNTRY_HEADER) value = v;
  }
  return value ? (countryCodeOf(value.trim()) ?? null) : null;
};
