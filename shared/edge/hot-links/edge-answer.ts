import { LINK_KEY } from '../link-key';
import { REDIRECT_CACHE_CONTROL, REDIRECT_REFERRER_POLICY } from '../redirect-headers';

/*
 * The pure decision of the hot-link edge function: is this viewer request decidable at the edge,
 * and what is the answer. Compiled into the CloudFront Function (edge-function.ts, runtime
 * cloudfront-js-2.0), so it is written for that runtime: no Node modules, no classes, no
 * destructuring, no optional chaining, no async closures; only what ES 5.1 plus const/let,
 * arrow functions and template literals offer.
 */

/** CloudFront KeyValueStore limits: a key up to 512 bytes, a value up to 1 KB, a store up to 5 MB. */
export const KVS_KEY_MAX_BYTES = 512;
export const KVS_VALUE_MAX_BYTES = 1024;
export const KVS_STORE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * An entry within this long of its link's expiry is not answered at the edge: the hot set is
 * refreshed every minute, so an entry read at the edge may be a refresh old; the origin decides
 * expiry (the link's expiredUrl or 410) exactly.
 */
export const EXPIRY_MARGIN_MS = 5 * 60_000;

/** Entry format version (`f`): an entry of another format is not answered (the origin is). */
export const HOT_ENTRY_FORMAT = 1;

/**
 * One hot link's entry (KeyValueStore key `host/key`, value this object as compact JSON):
 * `l` the `Location` the origin answers (the destination with the link's tracking parameters
 * applied as the origin applies them, serialized for a header), `s` the status (302), `e` the
 * link's expiry (epoch ms, null: none), `v` the link's version (its `updatedAt`), `i` the link's
 * id (the hot-set writer re-reads the links it holds).
 */
export interface HotEntry {
  f: number;
  l: string;
  s: number;
  e: number | null;
  v: string;
  i: string;
}

/** The part of a CloudFront Functions viewer request the decision reads. */
export interface ViewerFacts {
  method: string;
  /** The viewer's Host header (null: none). */
  host: string | null;
  /** The path without the query (CloudFront's `request.uri`). */
  uri: string;
  userAgent: string | null;
}

/** The edge's redirect: the status and headers the origin's redirect of the same link has. */
export interface EdgeRedirect {
  statusCode: number;
  headers: { location: string; 'cache-control': string; 'referrer-policy': string };
}

/** A host name as the origin reads it (lowercase, no port, no trailing dot). */
const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))+$/;
/** `/{key}`: one path segment, already in link-key syntax (no percent-decoding needed). */
const KEY_PATH = /^\/([^/]+)$/;

/** The store key of a request the edge may answer (GET of `/{key}` on a plain host name), else null. */
export const hotKeyOf = (request: ViewerFacts): string | null => {
  if (request.method !== 'GET' || request.host === null) return null;
  const host = request.host.toLowerCase();
  if (host.length > 253 || !HOST_NAME.test(host)) return null;
  const match = KEY_PATH.exec(request.uri);
  if (match === null) return null;
  const key = match[1];
  if (key === undefined || !LINK_KEY.test(key)) return null;
  return `${host}/${key}`;
};

/**
 * Mainstream browsers: Chrome, Edge, Safari (macOS, iOS, iPadOS), Firefox and Chrome on iOS, in
 * the exact shape their user agents have. The platform in parentheses is kept to plain characters.
 */
const PLATFORM =
  '\\((?:Windows NT \\d+\\.\\d+(?:; Win64; x64)?|Macintosh; Intel Mac OS X \\d+(?:[._]\\d+){0,2}|X11; (?:Ubuntu; )?Linux x86_64|X11; CrOS x86_64 [\\d.]+|Linux; Android \\d+(?:\\.\\d+){0,2}(?:; [A-Za-z0-9 _.-]{1,40})?|(?:iPhone|iPad); CPU (?:iPhone )?OS \\d+(?:_\\d+){0,2} like Mac OS X)';
const VERSION = '\\d+(?:\\.\\d+){0,3}';
const BROWSERS: RegExp[] = [
  // Chrome (desktop, Android), Edge, Opera.
  new RegExp(
    `^Mozilla/5\\.0 ${PLATFORM}\\) AppleWebKit/537\\.36 \\(KHTML, like Gecko\\) Chrome/${VERSION}(?: Mobile)? Safari/537\\.36(?: (?:Edg|EdgA|OPR)/${VERSION})?$`,
  ),
  // Safari (macOS, iOS, iPadOS) and Chrome / Firefox / Edge on iOS.
  new RegExp(
    `^Mozilla/5\\.0 ${PLATFORM}\\) AppleWebKit/${VERSION} \\(KHTML, like Gecko\\) (?:Version|CriOS|FxiOS|EdgiOS)/${VERSION}(?: Mobile/[A-Z0-9]{1,10})? Safari/${VERSION}$`,
  ),
  // Firefox (desktop, Android).
  new RegExp(`^Mozilla/5\\.0 ${PLATFORM}; rv:${VERSION}\\) Gecko/(?:\\d{8}|${VERSION}) Firefox/${VERSION}$`),
];

/**
 * Never answered at the edge, whatever else the user agent says: crawlers, link unfurlers,
 * previewers, headless and automated browsers, HTTP libraries and monitors.
 */
const NOT_A_VISITOR =
  /bot|crawl|spider|slurp|scan|preview|headless|lighthouse|google|bing|yandex|baidu|facebook|whatsapp|telegram|twitter|slack|discord|skype|linkedin|pinterest|embed|curl|wget|python|java|http|fetch|monitor|check|proxy|archive|feed|news|url|node|search|tool|server|agent|audit|capture|detect|grab|insight|inspect|measure|parser|scrape|radar|library|splash|synthetic|valid|torrent|discovery|analy|optimi|retriev|phantom|selenium|playwright|cypress|puppeteer|download|\.com/i;

/** A mainstream browser's user agent, with no bot or preview token. */
export const isMainstreamBrowser = (userAgent: string | null): boolean => {
  if (userAgent === null || userAgent.length > 512 || NOT_A_VISITOR.test(userAgent)) return false;
  for (let i = 0; i < BROWSERS.length; i++) {
    const pattern = BROWSERS[i];
    if (pattern !== undefined && pattern.test(userAgent)) return true;
  }
  return false;
};

/** A `Location` as the origin sends it: an absolute http(s) URL of printable ASCII. */
const HEADER_URL = /^https?:\/\/[\x21-\x7e]+$/;

/** The entry stored as text, or null when it is not a well-formed entry of this format. */
export const parseHotEntry = (text: string): HotEntry | null => {
  if (text.length > KVS_VALUE_MAX_BYTES) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const entry = value as Record<string, unknown>;
  const location = entry.l;
  const expiry = entry.e;
  if (entry.f !== HOT_ENTRY_FORMAT || entry.s !== 302 || typeof entry.v !== 'string' || typeof entry.i !== 'string')
    return null;
  if (typeof location !== 'string' || location.length > KVS_VALUE_MAX_BYTES || !HEADER_URL.test(location)) return null;
  if (expiry !== null && (typeof expiry !== 'number' || !isFinite(expiry))) return null;
  return { f: HOT_ENTRY_FORMAT, l: location, s: 302, e: expiry, v: entry.v, i: entry.i };
};

/** The edge's answer of an entry at `nowMs`, or null (near or past expiry: the origin decides). */
export const answerOfEntry = (entry: HotEntry, nowMs: number): EdgeRedirect | null => {
  if (entry.e !== null && entry.e - nowMs <= EXPIRY_MARGIN_MS) return null;
  return {
    statusCode: entry.s,
    headers: {
      location: entry.l,
      'cache-control': REDIRECT_CACHE_CONTROL,
      'referrer-policy': REDIRECT_REFERRER_POLICY,
    },
  };
};
