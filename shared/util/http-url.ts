import { domainToUnicode } from 'node:url';
/** The URL when `value` is an absolute http:// or https:// URL with a host; otherwise undefined. */
export const parseHttpUrl = (value: string): URL | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 ? url : undefined;
};

/** What RFC 3986 allows after the authority: unreserved and reserved characters but `[` and `]`, and `%`. */
const NOT_URI_CHARACTER = /[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g;

/** An http(s) URL that is already a URI: ASCII URI characters only, brackets only in the host, one `#` at most. */
const ALREADY_URI =
  /^https?:\/\/[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%]*(?:[/?][A-Za-z0-9\-._~:/?@!$&'()*+,;=%]*)?(?:#[A-Za-z0-9\-._~:/?@!$&'()*+,;=%]*)?$/i;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/**
 * An http(s) URL as a URI (RFC 3986): unchanged when it already is one (`https://example.com`
 * stays without a slash); otherwise its standard (WHATWG) serialization, which turns an IDN
 * host into punycode and percent-encodes non-ASCII characters, then percent-encodes what that
 * leaves but a URI may not hold: a `%` not followed by two hex digits (`%zz` becomes `%25zz`) and
 * ASCII characters outside the URI set (`|`, `^`, `[`, `]`, a backslash...). The API answers
 * every URL this way, however it was stored. A string that does not parse (never expected:
 * URLs are validated on write) is percent-encoded as a whole.
 */
export const uriOf = (value: string): string => {
  if (ALREADY_URI.test(value) && !STRAY_PERCENT.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // A lone surrogate makes encodeURI throw: U+FFFD instead, as URL parsing does.
    return encodeURI(
      value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
    );
  }
  // Scheme and authority as serialized (an http(s) URL always has a path after them).
  const authority = url.href.slice(0, url.href.indexOf('/', url.protocol.length + 2));
  const encode = (part: string) =>
    part
      .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
      .replace(
        NOT_URI_CHARACTER,
        (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
      );
  // The first `#` starts the fragment; one inside the fragment is data (`%23`).
  const hashAt = url.href.indexOf('#');
  const head = hashAt === -1 ? url.href : url.href.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : `#${encode(url.href.slice(hashAt + 1)).replace(/#/g, '%23')}`;
  return authority + encode(head.slice(authority.length)) + fragment;
};

/** `uriOf` for a nullable URL. */
export const nullableUriOf = (value: string | null): string | null => (value === null ? null : uriOf(value));

/**
 * A stored URL as people type it: the host in Unicode (punycode decoded) and percent-encoded
 * UTF-8 decoded (reserved characters stay encoded); the URL itself when it does not decode.
 * What `search` also matches, beside the normalised URL.
 */
export const unicodeFormOf = (value: string): string => {
  try {
    const url = new URL(value);
    const host = domainToUnicode(url.hostname);
    const authorityEnd = value.indexOf('/', url.protocol.length + 2);
    const rest = authorityEnd === -1 ? '' : value.slice(authorityEnd);
    return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${decodeURI(rest)}`;
  } catch {
    return value;
  }
};
