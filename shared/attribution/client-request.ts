import { parseUserAgent, type ClientInfo } from '@shared/clicks/user-agent';
import { header, type ApiEvent } from '@shared/http/api-types';
import { destinationCountry, viewerCountry, viewerIp } from '@shared/http/trusted-viewer';

/** What the client API reads from the HTTP request itself (never stored raw: see fingerprint). */
export interface ClientRequestInfo {
  ip: string | null;
  /** The CDN's viewer country, only on a request through the front door (shared/http/trusted-viewer.ts). */
  country: string | null;
  /** The country geo targeting answers for: the trusted country, else the request's CloudFront-Viewer-Country hint (never recorded). */
  destinationCountry: string | null;
  userAgent: string | null;
  referrer: string | null;
  /** The raw `Accept-Language` header (redirect rules of type `language`). */
  acceptLanguage: string | null;
  client: ClientInfo;
}

export const clientRequestInfo = (event: ApiEvent): ClientRequestInfo => {
  const userAgent = header(event, 'user-agent') ?? null;
  return {
    ip: viewerIp(event),
    country: viewerCountry(event),
    destinationCountry: destinationCountry(event),
    userAgent,
    referrer: header(event, 'referer') ?? null,
    acceptLanguage: header(event, 'accept-language') ?? null,
    client: parseUserAgent(userAgent),
  };
};
