import { parseUserAgent, type ClientInfo } from '@shared/clicks/user-agent';
import { header, type ApiEvent } from '@shared/http/api-types';
import { viewerCountry } from '@shared/http/viewer-country';

/** What the client API reads from the HTTP request itself (never stored raw: see fingerprint). */
export interface ClientRequestInfo {
  ip: string | null;
  userAgent: string | null;
  referrer: string | null;
  /** The viewer's country (`CloudFront-Viewer-Country`), as on the edge. */
  country: string | null;
  client: ClientInfo;
}

export const clientRequestInfo = (event: ApiEvent): ClientRequestInfo => {
  const userAgent = header(event, 'user-agent') ?? null;
  return {
    ip: event.requestContext?.http?.sourceIp || null,
    userAgent,
    referrer: header(event, 'referer') ?? null,
    country: viewerCountry(event.headers),
    client: parseUserAgent(userAgent),
  };
};
