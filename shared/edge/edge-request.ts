import { header, type ApiEvent } from '@shared/http/api-types';

/** What the edge reads from a request, in one place. */
export interface EdgeRequest {
  method: string;
  /** Hostname without port, lowercased (the domain the link lives on). */
  hostname: string;
  /** `scheme://host[:port]` as the client sees it (for absolute URLs on pages). */
  origin: string;
  key: string | undefined;
  query: URLSearchParams;
  userAgent: string | null;
  ip: string | null;
  country: string | null;
  referrer: string | null;
}

/** CDN / viewer country headers, first present wins (CloudFront, then Cloudflare-style). */
const COUNTRY_HEADERS = ['cloudfront-viewer-country', 'cf-ipcountry'];

const countryOf = (event: ApiEvent): string | null => {
  for (const name of COUNTRY_HEADERS) {
    const value = header(event, name)?.trim();
    if (value && /^[A-Za-z]{2}$/.test(value)) return value.toUpperCase();
  }
  return null;
};

/** Host header (API Gateway passes the custom domain's), lowercased, without port or trailing dot. */
const hostOf = (event: ApiEvent): string => (header(event, 'host') ?? event.requestContext?.domainName ?? '').trim().toLowerCase();

export const parseEdgeRequest = (event: ApiEvent): EdgeRequest => {
  const host = hostOf(event);
  const hostname = host.replace(/:\d+$/, '').replace(/\.$/, '');
  // API Gateway sets x-forwarded-proto; the local server does not and speaks plain HTTP.
  const scheme = header(event, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  return {
    method: event.requestContext?.http?.method?.toUpperCase() ?? 'GET',
    hostname,
    origin: `${scheme}://${host}`,
    key: event.pathParameters?.key,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    userAgent: header(event, 'user-agent') ?? null,
    ip: event.requestContext?.http?.sourceIp ?? null,
    country: countryOf(event),
    referrer: header(event, 'referer') ?? null,
  };
};
