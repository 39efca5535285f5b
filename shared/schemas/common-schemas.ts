import * as z from './zod-mini';
import { parseHttpUrl, uriOf } from '@shared/util/http-url';

/** Field limits: URLs absolute http(s) up to 2,048 characters, keys 1-100 of [A-Za-z0-9_-] (`.` inside). */
export const limits = {
  urlMax: 2048,
  keyMax: 100,
  titleMax: 255,
  commentsMax: 1000,
  passwordMax: 128,
  objectsMaxBytes: 16 * 1024,
  tagsPerLink: 20,
  tagNameMax: 50,
} as const;

export const RESERVED_KEYS = ['api', 'v1', '.well-known', 'favicon.ico', 'robots.txt'] as const;

/** True when the URL's authority has a userinfo part, even an empty one (`https://@host/`, which URL normalizes away). */
const hasUserinfo = (value: string): boolean => {
  const url = parseHttpUrl(value);
  if (url === undefined) return false;
  if (url.username !== '' || url.password !== '') return true;
  const afterScheme = value.replace(/^[a-z][a-z0-9+.-]*:[/\\]*/i, '');
  return /^[^/\\?#]*@/.test(afterScheme);
};

/** C0 and C1 controls (U+0000-001F, U+007F-009F: exactly \p{Cc}), the space, and the line / paragraph separators. */
const CONTROL_OR_SPACE = /[\p{Cc} \u2028\u2029]/u;

/**
 * Absolute http(s) URL as sent, at most 2,048 characters; other schemes (javascript:, data:,
 * file:) refused, and so are credentials (`https://accounts.example.com@evil.example/` is a known
 * phishing disguise: the host is evil.example). Checked only: a URL that names something (a short
 * link given to a client route) is read as sent.
 */
export const httpUrlAsSentSchema = z.string().check(
  z.maxLength(limits.urlMax, `must be at most ${limits.urlMax} characters`),
  z.refine(
    (value) => !CONTROL_OR_SPACE.test(value) && parseHttpUrl(value) !== undefined,
    'must be an absolute http:// or https:// URL',
  ),
  z.refine((value) => !hasUserinfo(value), 'must not contain credentials (user:password@ before the host)'),
);

/**
 * A URL the service stores (destinations, overrides, geo, rules, variants): `httpUrlAsSentSchema`,
 * then normalised to its standard serialisation as a URI (`uriOf`: punycode host, non-ASCII
 * percent-encoded, a stray `%` as `%25`), which is what is stored and answered. The 2,048-character
 * limit holds for the normalised URL too: percent-encoding makes a CJK URL about nine times longer.
 */
export const httpUrlSchema = z.pipe(
  z.pipe(httpUrlAsSentSchema, z.transform(uriOf)),
  z
    .string()
    .check(
      z.maxLength(
        limits.urlMax,
        `must be at most ${limits.urlMax} characters once normalised (non-ASCII characters percent-encoded)`,
      ),
    ),
);

export const nullableHttpUrlSchema = z.nullable(httpUrlSchema);

/** Slug: 1-100 of [A-Za-z0-9_-], '.' allowed inside but not at the ends; reserved words refused. */
export const linkKeySchema = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(limits.keyMax, `must be at most ${limits.keyMax} characters`),
  z.regex(
    /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/,
    'may contain only A-Z, a-z, 0-9, _, - and . (not at the ends)',
  ),
  z.refine((value) => !(RESERVED_KEYS as readonly string[]).includes(value.toLowerCase()), 'is a reserved word'),
);

/** A hostname as stored for domains: lower-cased on input. */
export const hostnameSchema = z
  .pipe(
    z.string().check(z.minLength(1), z.maxLength(253)),
    z.transform((v: string) => v.toLowerCase()),
  )
  .check(
    z.refine(
      (v) => /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/.test(v),
      'must be a hostname',
    ),
  );

export const dateTimeSchema = z.iso.datetime({ offset: true });

export const tagNameSchema = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, 'must not be empty'),
    z.maxLength(limits.tagNameMax, `must be at most ${limits.tagNameMax} characters`),
  );
