/**
 * The Import page's model: a vendor's CSV export (Bitly, Rebrandly, Short.io or generic) parsed in
 * the browser and mapped onto link bodies with the admin CLI importer's own format module
 * (shared/import/csv-formats.ts: the same columns, the same header matching, the same content key
 * for a row without a slug), then created through `POST /v1/links/bulk` 100 at a time.
 */
import type { Link, LinkBulkResults, LinkCreateRequest } from '@linkservice/sdk';
import {
  contentKeyInput,
  contentKeyOfDigest,
  hasUrlColumn,
  IMPORT_FORMATS,
  mapRow,
  readCsvRecords,
  type CsvRecord,
  type ImportFormat,
} from '../../shared/import/csv-formats';

export { IMPORT_FORMATS, readCsvRecords, type CsvRecord, type ImportFormat };

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  bitly: 'Bitly',
  rebrandly: 'Rebrandly',
  shortio: 'Short.io',
  generic: 'Generic (url, key, title, tags)',
};

/** The API's bulk limit: one request per 100 rows. */
export const CHUNK_SIZE = 100;

/**
 * Why a row was not created: `already_imported` (its key is already a link of this workspace with
 * the row's destination: an earlier import of the same row), `slug_taken` (its key is another
 * link's), or `failed` (the row or the request was refused).
 */
export type SkipReason = 'already_imported' | 'slug_taken';
export type RowReason = SkipReason | 'failed';

export type RowResult =
  | { row: number; ok: true; key: string; shortLink: string }
  | {
      row: number;
      ok: false;
      key: string | undefined;
      code: string;
      message: string;
      details?: string;
      /** Set on a `slug_taken` answer once the key's link is looked up (`classifyTaken`). */
      skip?: SkipReason;
    };

/** The reason of a row not created: a skip when `classifyTaken` found one, otherwise a failure. */
export const reasonOf = (result: Extract<RowResult, { ok: false }>): RowReason => result.skip ?? 'failed';

export type Prepared =
  { row: number; ok: true; body: LinkCreateRequest & { key: string } } | Extract<RowResult, { ok: false }>;

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A row as a create body, or why it is not one (the API validates the rest, row by row). */
export const prepareRow = async (
  format: ImportFormat,
  domain: string,
  { row, record }: CsvRecord,
): Promise<Prepared> => {
  const mapped = mapRow(format, record);
  if (!mapped.url)
    return { row, ok: false, key: mapped.slug, code: 'invalid_request', message: 'The row has no destination URL' };
  const key =
    mapped.slug ??
    contentKeyOfDigest(hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(contentKeyInput(mapped)))));
  return {
    row,
    ok: true,
    body: {
      url: mapped.url,
      domain,
      key,
      ...(mapped.title ? { title: mapped.title } : {}),
      ...(mapped.tags.length ? { tags: mapped.tags } : {}),
    },
  };
};

const detailsText = (details: unknown): string | undefined =>
  Array.isArray(details)
    ? details
        .map((d: unknown) =>
          typeof d === 'object' && d !== null && 'path' in d && 'message' in d
            ? `${String(d.path)} ${String(d.message)}`
            : JSON.stringify(d),
        )
        .join('; ')
    : undefined;

/** Each bulk result joined to its row. */
export const resultsOf = (valid: readonly Extract<Prepared, { ok: true }>[], results: LinkBulkResults): RowResult[] =>
  valid.map((p, i) => {
    const result = results[i];
    if (!result)
      return { row: p.row, ok: false, key: p.body.key, code: 'no_result', message: 'The API gave no result' };
    if (result.success) return { row: p.row, ok: true, key: result.data.key, shortLink: result.data.shortLink };
    const details = detailsText(result.error.details);
    return {
      row: p.row,
      ok: false,
      key: p.body.key,
      code: result.error.code,
      message: result.error.message,
      ...(details ? { details } : {}),
    };
  });

export { hasUrlColumn };

/** Two destinations are the same when they parse to the same URL (the API normalises what it stores). */
const sameUrl = (a: string, b: string): boolean => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

/** How many key look-ups run at once. */
const LOOKUP_CONCURRENCY = 5;

/**
 * The bulk route answers `slug_taken` for a key already used, whoever uses it: it cannot say
 * whether the row was imported before. As the CLI's importer decides, the key's link tells: a link
 * of this workspace with the row's destination is the row imported before (`already_imported`);
 * any other (another destination, or a link the workspace cannot see: another workspace's, or a
 * deep link) holds the key for something else (`slug_taken`). `findLink` looks a key up on the
 * domain (undefined when the workspace has no link there with it).
 */
export const classifyTaken = async (
  results: readonly RowResult[],
  urls: ReadonlyMap<number, string | undefined>,
  findLink: (key: string) => Promise<Link | undefined>,
): Promise<RowResult[]> => {
  const out = [...results];
  const taken = out.flatMap((r, i) => (!r.ok && r.code === 'slug_taken' && r.key !== undefined ? [i] : []));
  for (let start = 0; start < taken.length; start += LOOKUP_CONCURRENCY) {
    await Promise.all(
      taken.slice(start, start + LOOKUP_CONCURRENCY).map(async (i) => {
        const result = out[i];
        if (!result || result.ok || result.key === undefined) return;
        const existing = await findLink(result.key);
        const url = urls.get(result.row);
        const mine = existing !== undefined && url !== undefined && sameUrl(existing.url, url);
        out[i] = { ...result, skip: mine ? 'already_imported' : 'slug_taken' };
      }),
    );
  }
  return out;
};

/**
 * The rows not created as CSV rows: the row, why (`reason`: already_imported, slug_taken or
 * failed), the API's error, then the row's own cells under its headers.
 */
export const failureRows = (
  headers: readonly string[],
  records: readonly CsvRecord[],
  results: readonly RowResult[],
): string[][] => {
  const byRow = new Map(records.map((r) => [r.row, r.record]));
  return [
    ['row', 'reason', 'error_code', 'error_message', 'error_details', ...headers],
    ...results
      .filter((r): r is Extract<RowResult, { ok: false }> => !r.ok)
      .map((r) => {
        const record = byRow.get(r.row) ?? {};
        return [String(r.row), reasonOf(r), r.code, r.message, r.details ?? '', ...headers.map((h) => record[h] ?? '')];
      }),
  ];
};
