import { header, type ApiEvent } from './api-types';

/**
 * The one source of truth for what the viewer's CDN says about the viewer: country, address and
 * the Host the viewer asked for. Behind CloudFront the origin sees CloudFront's own address and
 * the function URL's Host, so these come from headers — which a client could also send. They are
 * therefore read only from an event marked as having come through the front door (the
 * origin-verify middleware marks it after checking the secret); on any other event the country
 * is unknown, the address is the TCP peer's and the host is the Host header.
 */
const throughFrontDoor = new WeakSet<object>();

/** Called by the origin-verify middleware only, after the secret matched. */
export const markThroughFrontDoor = (event: ApiEvent): void => {
  throughFrontDoor.add(event);
};

export const isThroughFrontDoor = (event: ApiEvent): boolean => throughFrontDoor.has(event);

/** ISO 3166-1 alpha-2 country from `CloudFront-Viewer-Country`, uppercased; null when unknown or untrusted. */
export const viewerCountry = (event: ApiEvent): string | null => {
  if (!isThroughFrontDoor(event)) return null;
  const value = header(event, 'cloudfront-viewer-country')?.trim();
  return value && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null;
};

/**
 * The country a destination is chosen for (geo targeting) on a route outside the front door (the
 * client API): the trusted country when there is one, else the request's own
 * `CloudFront-Viewer-Country` as a hint. A client that sends another country only chooses which
 * of the link's public destinations it is told; what is recorded (`viewerCountry`) stays trusted-only.
 */
export const destinationCountry = (event: ApiEvent): string | null => {
  const trusted = viewerCountry(event);
  if (trusted) return trusted;
  const hint = header(event, 'cloudfront-viewer-country')?.trim();
  return hint && /^[A-Za-z]{2}$/.test(hint) ? hint.toUpperCase() : null;
};

/**
 * `CloudFront-Viewer-Address` is `ip:port`; an IPv6 address comes unbracketed
 * (`2001:db8::1:443`), so the port is what follows the last colon.
 */
export const parseViewerAddress = (value: string | undefined): string | null => {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  const colon = trimmed.lastIndexOf(':');
  if (colon <= 0 || !/^\d{1,5}$/.test(trimmed.slice(colon + 1))) return null;
  const ip = trimmed.slice(0, colon).replace(/^\[|\]$/g, '');
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (ipv4) return ipv4.slice(1).every((octet) => Number(octet) <= 255) ? ip : null;
  return ip.includes(':') && /^[0-9A-Fa-f:.]+$/.test(ip) ? ip.toLowerCase() : null;
};

/** The viewer's IP: `CloudFront-Viewer-Address` through the front door, else the TCP peer. */
export const viewerIp = (event: ApiEvent): string | null => {
  if (isThroughFrontDoor(event)) {
    const fromCdn = parseViewerAddress(header(event, 'cloudfront-viewer-address'));
    if (fromCdn) return fromCdn;
  }
  return event.requestContext.http.sourceIp || null;
};

/**
 * The Host the viewer asked for, lowercased (port kept): `x-forwarded-host` (the viewer-request
 * CloudFront Function copies the viewer's Host there) through the front door, else `Host`.
 */
export const viewerHost = (event: ApiEvent): string => {
  const forwarded = isThroughFrontDoor(event) ? header(event, 'x-forwarded-host') : undefined;
  return (forwarded ?? header(event, 'host') ?? event.requestContext.domainName).trim().toLowerCase();
};
