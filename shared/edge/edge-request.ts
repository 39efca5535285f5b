import { header, type ApiEvent } from '@shared/http/api-types';
import { viewerCountry, viewerHost, viewerIp } from '@shared/http/trusted-viewer';

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

export const parseEdgeRequest = (event: ApiEvent): EdgeRequest => {
  const host = viewerHost(event);
  const hostname = host.replace(/:\d+$/, '').replace(/\.$/, '');
  // Function URLs (and API Gateway) set x-forwarded-proto; the local server speaks plain HTTP.
  const scheme = header(event, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  return {
    method: event.requestContext.http.method.toUpperCase(),
    hostname,
    origin: `${scheme}://${host}`,
    key: event.pathParameters?.key,
    query: new URLSearchParams(event.rawQueryString),
    userAgent: header(event, 'user-agent') ?? null,
    ip: viewerIp(event),
    country: viewerCountry(event),
    referrer: header(event, 'referer') ?? null,
  };
};
