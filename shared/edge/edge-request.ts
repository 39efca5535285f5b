import { parseUserAgent, type ClientInfo } from '@shared/clicks/user-agent';
import { header, type ApiEvent } from '@shared/http/api-types';
import { viewerCountry, viewerHost, viewerIp } from '@shared/http/trusted-viewer';
import { visitorCookieOf } from './visitor-cookie';

/** What the edge reads from a request, read once into one value that nothing changes afterwards. */
export interface EdgeRequest {
  readonly method: string;
  /** Hostname without port, lowercased (the domain the link lives on). */
  readonly hostname: string;
  /** `scheme://host[:port]` as the client sees it (for absolute URLs on pages). */
  readonly origin: string;
  readonly key: string | undefined;
  readonly query: Readonly<URLSearchParams>;
  readonly userAgent: string | null;
  /** The user agent's classification (bot, platform, browser), parsed once for the whole request. */
  readonly client: Readonly<ClientInfo>;
  readonly ip: string | null;
  readonly country: string | null;
  readonly referrer: string | null;
  /** The raw `Accept-Language` header (redirect rules of type `language`). */
  readonly acceptLanguage: string | null;
  /** The edge's first-party visitor cookie (A/B-test variants), when the visitor sent a well-formed one. */
  readonly visitorCookie: string | null;
}

/**
 * Reads the edge request. `key` is the link key of the path, when the caller matched one (the
 * edge's function URL has no router); it defaults to the `key` path parameter of a routed event.
 */
export const parseEdgeRequest = (event: ApiEvent, key: string | undefined = event.pathParameters?.key): EdgeRequest => {
  const host = viewerHost(event);
  const hostname = host.replace(/:\d+$/, '').replace(/\.$/, '');
  // Function URLs (and API Gateway) set x-forwarded-proto; the local server speaks plain HTTP.
  const scheme = header(event, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  const userAgent = header(event, 'user-agent') ?? null;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    hostname,
    origin: `${scheme}://${host}`,
    key,
    query: new URLSearchParams(event.rawQueryString),
    userAgent,
    client: parseUserAgent(userAgent),
    ip: viewerIp(event),
    country: viewerCountry(event),
    referrer: header(event, 'referer') ?? null,
    acceptLanguage: header(event, 'accept-language') ?? null,
    visitorCookie: visitorCookieOf(event.cookies),
  };
};
