/**
 * The Import page's model: a vendor's CSV export (Bitly, Rebrandly, Short.io or generic) parsed in
 * the browser and mapped onto link bodies with the admin CLI importer's own format module
 * (shared/import/csv-formats.ts: the same columns, the same header matching, the same content key
 * for a row without a slug), then created through `POST /v1/links/bulk` 100 at a time.
 */
import type { LinkBulkResults, LinkCreateRequest } from '@linkservice/sdk';
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

export type RowResult =
  | { row: number; ok: true; key: string; shortLink: string }
  | { row: number; ok: false; key: string | undefined; code: string; message: string; details?: string };

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

/** The failures as CSV rows: the row, the reason, then the row's own cells under its headers. */
export const failureRows = (
  headers: readonly string[],
  records: readonly CsvRecord[],
  results: readonly RowResult[],
): string[][] => {
  const byRow = new Map(records.map((r) => [r.row, r.record]));
  return [
    ['row', 'error_code', 'error_message', 'error_details', ...headers],
    ...results
      .filter((r): r is Extract<RowResult, { ok: false }> => !r.ok)
      .map((r) => {
        const record = byRow.get(r.row) ?? {};
        return [String(r.row), r.code, r.message, r.details ?? '', ...headers.map((h) => record[h] ?? '')];
      }),
  ];
};
