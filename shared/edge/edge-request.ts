import { header, type ApiEvent } from '@shared/http/api-types';
import { viewerCountry } from '@shared/http/viewer-country';

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
    country: viewerCountry(event.headers),
    referrer: header(event, 'referer') ?? null,
  };
};
