import { getConfig } from '@shared/config/config';
import { parseHttpUrl } from '@shared/util/http-url';

/**
 * A link's short link, the one place it is written: `https://{domain}/{key}` when deployed. The
 * local stack configures plain HTTP on its edge's port (SHORT_LINK_SCHEME, SHORT_LINK_PORT), so
 * there it is `http://{domain}:{edge port}/{key}`, which that edge answers (browsers and curl
 * resolve `*.localhost` to this machine). API answers, default titles, QR codes, analytics rows
 * and the legacy views all render it here.
 */
export const shortLinkOf = (domain: string, key: string): string => {
  const { SHORT_LINK_SCHEME: scheme, SHORT_LINK_PORT: port } = getConfig();
  return `${scheme}://${domain}${port === undefined ? '' : `:${String(port)}`}/${key}`;
};

/**
 * The domain + key a short-link URL names: `http(s)://{domain}[:port]/{key}` with exactly one path
 * segment (percent-decoded). Anything else names no link: undefined. Scheme and port do not
 * matter (the deployed `https://` form and the local `http://...:{edge port}` form name the same
 * link); query and fragment are ignored. Shared by the client API and the legacy retrieve routes.
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
