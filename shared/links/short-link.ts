import { parseHttpUrl } from '@shared/util/http-url';

/**
 * The domain + key a short-link URL names: `http(s)://{domain}/{key}` with exactly one path
 * segment (percent-decoded). Anything else names no link: undefined. Query and fragment are
 * ignored. Shared by the client API and the legacy retrieve routes.
 */
export const slugOfShortLink = (shortLink: string): { domain: string; key: string } | undefined => {
  const url = parseHttpUrl(shortLink.trim());
  if (!url) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    return undefined;
  }
  if (key === '' || key.includes('/')) return undefined;
  return { domain: url.hostname.toLowerCase(), key };
};

export const isHttpUrl = (value: string): boolean => parseHttpUrl(value.trim()) !== undefined;
