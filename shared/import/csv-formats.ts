/**
 * How each vendor's CSV export maps onto a link (docs/import.md cites the source of each
 * format). Headers are matched ignoring case, spaces, `_` and `-`, so `long_url`, `Long URL` and
 * `longUrl` are one column; the first listed header present wins.
 *
 * The admin CLI's importer and the web console's Import page both map rows with this module, so it
 * imports nothing from Node or the service: the console's bundle includes it as it is.
 */
import { parse } from 'csv-parse/browser/esm/sync';
import { canonicalJson } from '../util/canonical-json';

export const IMPORT_FORMATS = ['bitly', 'rebrandly', 'shortio', 'generic'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

interface FormatColumns {
  url: string[];
  /** Columns holding the back-half / slug itself. */
  slug: string[];
  /** Columns holding the whole short link (`bit.ly/abc`, `https://go.example.com/abc`): its path is the slug. */
  shortLink: string[];
  title: string[];
  tags: string[];
  createdAt: string[];
  /** Redirect rules / A/B-test variants as the API's JSON (this service's own exports only). */
  rules: string[];
  variants: string[];
}

export const FORMAT_COLUMNS: Record<ImportFormat, FormatColumns> = {
  bitly: {
    url: ['long_url'],
    slug: ['back_half'],
    // custom_bitlinks holds the link's custom short links (first one wins), `link` the bit.ly one.
    shortLink: ['custom_bitlinks', 'link', 'bitlink', 'short_url'],
    title: ['title'],
    tags: ['tags'],
    createdAt: ['created_at', 'created'],
    rules: [],
    variants: [],
  },
  rebrandly: {
    url: ['destination'],
    slug: ['slashtag'],
    shortLink: ['shortUrl'],
    title: ['title'],
    tags: ['tags'],
    createdAt: ['createdAt'],
    rules: [],
    variants: [],
  },
  shortio: {
    url: ['originalURL', 'original_url'],
    slug: ['path'],
    shortLink: ['shortURL', 'secureShortURL', 'short_url'],
    title: ['title'],
    tags: ['tags'],
    createdAt: ['createdAt', 'created_at'],
    rules: [],
    variants: [],
  },
  generic: {
    url: ['url', 'destination_url', 'destination', 'long_url'],
    slug: ['key', 'slug'],
    shortLink: ['short_link', 'short_url'],
    title: ['title'],
    tags: ['tags'],
    createdAt: ['created_at'],
    rules: ['rules'],
    variants: ['variants'],
  },
};

/** What one CSV row says about a link, before validation. */
export interface ImportRow {
  url: string | undefined;
  slug: string | undefined;
  title: string | undefined;
  tags: string[];
  createdAt: string | undefined;
  /** The cells' JSON text, parsed and validated with the row. */
  rules: string | undefined;
  variants: string | undefined;
}

const normalize = (header: string) => header.toLowerCase().replace(/[\s_-]+/g, '');

/** The path of a short link written with or without its scheme (`bit.ly/abc` -> `abc`). */
export const slugOfShortLinkText = (text: string): string | undefined => {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    const path = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
    return path || undefined;
  } catch {
    return undefined;
  }
};

/** Tags as exported: one cell, separated by `,`, `;` or `|`. */
export const splitTags = (cell: string | undefined): string[] =>
  (cell ?? '')
    .split(/[,;|]/)
    .map((t) => t.trim())
    .filter(Boolean);

/** Maps one parsed record (header -> cell) of a vendor's export onto an ImportRow. */
export const mapRow = (format: ImportFormat, record: Record<string, string>): ImportRow => {
  const cells = new Map<string, string>();
  for (const [header, value] of Object.entries(record)) {
    const key = normalize(header);
    if (!cells.has(key)) cells.set(key, typeof value === 'string' ? value.trim() : '');
  }
  const columns = FORMAT_COLUMNS[format];
  const first = (names: string[]) => names.map((n) => cells.get(normalize(n))).find((v) => v !== undefined && v !== '');
  const shortLink = first(columns.shortLink)?.split(/[\s,;|]+/)[0];
  return {
    url: first(columns.url),
    slug: first(columns.slug) ?? (shortLink ? slugOfShortLinkText(shortLink) : undefined),
    title: first(columns.title),
    tags: splitTags(first(columns.tags)),
    createdAt: first(columns.createdAt),
    rules: first(columns.rules),
    variants: first(columns.variants),
  };
};

/** The headers a format needs to find at least its URL column (checked once on the header row). */
export const hasUrlColumn = (format: ImportFormat, headers: string[]): boolean => {
  const present = new Set(headers.map(normalize));
  return FORMAT_COLUMNS[format].url.some((n) => present.has(normalize(n)));
};

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CONTENT_KEY_LENGTH = 10;

/** The text whose SHA-256 gives a slug-less row its key (see contentKeyOfDigest). */
export const contentKeyInput = (row: ImportRow): string =>
  canonicalJson({ url: row.url, title: row.title ?? null, tags: row.tags, createdAt: row.createdAt ?? null });

/**
 * The key of a row without a slug, from the hex SHA-256 of its contentKeyInput: derived from its
 * content, so that importing the same file again finds the same slug (and skips the row) instead
 * of creating a copy. (The hash is the caller's: Node's crypto in the CLI, Web Crypto in a browser.)
 */
export const contentKeyOfDigest = (hexDigest: string): string => {
  let n = BigInt(`0x${hexDigest}`);
  let key = '';
  for (let i = 0; i < CONTENT_KEY_LENGTH; i++) {
    key += BASE62.charAt(Number(n % 62n));
    n /= 62n;
  }
  return key;
};

/** One CSV record with its 1-based data row number (the header row is not counted), as the reports number it. */
export interface CsvRecord {
  row: number;
  record: Record<string, string>;
}

/**
 * Parses an export with csv-parse (maintained, MIT; quoting, embedded newlines, BOM and ragged
 * rows are its job, not ours), for the admin CLI and the console alike: csv-parse's browser
 * build, which runs in Node too. Each record keeps its data row number for the report.
 */
export const readCsvRecords = (text: string): { headers: string[]; records: CsvRecord[] } => {
  let headers: string[] = [];
  const rows = parse<Record<string, string>>(text, {
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    columns: (header: string[]) => (headers = header.map((h) => h.trim())),
  });
  return { headers, records: rows.map((record, i) => ({ row: i + 1, record })) };
};
