import { createHash } from 'node:crypto';
import { bulkCreateLinks } from '@shared/links/bulk-create-links';
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { getShortLinkDomainOrThrow } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { toIssues } from '@shared/http/validation';
import { limits } from '@shared/schemas/common-schemas';
import { BULK_MAX_ITEMS } from '@shared/schemas/bulk-schemas';
import { createLinkBodySchema } from '@shared/schemas/link-schemas';
import * as z from '@shared/schemas/zod-mini';
import { required } from '@shared/util/required';
import {
  contentKeyInput,
  contentKeyOfDigest,
  mapRow,
  type CsvRecord,
  type ImportFormat,
  type ImportRow,
} from './csv-formats';

export type { CsvRecord };

export interface ImportOptions {
  workspaceId: string;
  domain: string;
  format: ImportFormat;
  dryRun?: boolean;
  /** Who imports: each transaction chunk's `link.created` audit entry names it. */
  origin: ChangeOrigin;
  /** Called after each batch with the number of rows it handled. */
  onProgress?: (rows: number) => void;
}

export interface ImportReport {
  format: ImportFormat;
  domain: string;
  dryRun: boolean;
  rows: number;
  created: number;
  skipped: number;
  failed: number;
  /** Rows not created because their slug is already used: by the same link (a re-run) or by another link. */
  skippedRows: Array<{ row: number; key: string; reason: 'already_imported' | 'slug_taken' }>;
  failures: Array<{ row: number; code: string; message: string; details?: unknown }>;
}

/**
 * The key of a row without a slug: derived from a hash of its content, so that importing the
 * same file again finds the same slug (and skips the row) instead of creating a copy.
 */
export const contentKeyOf = (row: ImportRow): string =>
  contentKeyOfDigest(createHash('sha256').update(contentKeyInput(row)).digest('hex'));

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

type Prepared =
  | { row: number; ok: true; key: string; url: string; body: Record<string, unknown>; createdAt: string | undefined }
  | { row: number; ok: false; code: string; message: string; details?: unknown };

/** A row as a `POST /v1/links` body (validated as the API validates it), or the reason it is not one. */
const prepare = (format: ImportFormat, domain: string, { row, record }: CsvRecord): Prepared => {
  const mapped = mapRow(format, record);
  if (!mapped.url) return { row, ok: false, code: 'invalid_request', message: 'The row has no destination URL' };
  let createdAt: string | undefined;
  if (mapped.createdAt !== undefined) {
    const at = Date.parse(
      /^\d+$/.test(mapped.createdAt)
        ? new Date(Number(mapped.createdAt) * (mapped.createdAt.length > 11 ? 1 : 1000)).toISOString()
        : mapped.createdAt,
    );
    if (Number.isNaN(at))
      return {
        row,
        ok: false,
        code: 'invalid_request',
        message: `The created date "${truncate(mapped.createdAt, 40)}" is not a date`,
      };
    createdAt = new Date(at).toISOString();
  }
  const json: Record<string, unknown> = {};
  for (const field of ['rules', 'variants'] as const) {
    const cell = mapped[field];
    if (cell === undefined) continue;
    try {
      json[field] = JSON.parse(cell) as unknown;
    } catch {
      return { row, ok: false, code: 'invalid_request', message: `The ${field} cell is not JSON` };
    }
  }
  const key = mapped.slug ?? contentKeyOf(mapped);
  const body = {
    url: mapped.url,
    domain,
    key,
    ...(mapped.title ? { title: truncate(mapped.title, limits.titleMax) } : {}),
    ...(mapped.tags.length ? { tags: mapped.tags } : {}),
    ...json,
  };
  const parsed = z.safeParse(createLinkBodySchema, body);
  if (!parsed.success)
    return {
      row,
      ok: false,
      code: 'invalid_request',
      message: 'The row is not a valid link',
      details: toIssues(parsed.error),
    };
  return { row, ok: true, key, url: mapped.url, body, createdAt };
};

/**
 * Imports a vendor's CSV export into a workspace's short-link domain, through the same bulk
 * create the API uses, 100 rows at a time. A row whose slug is already used is skipped: by a
 * link with the same URL in this workspace it was imported before (a re-run), otherwise the slug
 * is taken by another link. `dryRun` validates and classifies without writing.
 */
export const importLinks = async (records: CsvRecord[], options: ImportOptions): Promise<ImportReport> => {
  const domain = await getShortLinkDomainOrThrow(options.workspaceId, options.domain);
  const report: ImportReport = {
    format: options.format,
    domain: domain.domain,
    dryRun: options.dryRun ?? false,
    rows: records.length,
    created: 0,
    skipped: 0,
    failed: 0,
    skippedRows: [],
    failures: [],
  };
  const fail = (p: { row: number; code: string; message: string; details?: unknown }) => {
    report.failed++;
    report.failures.push({
      row: p.row,
      code: p.code,
      message: p.message,
      ...(p.details !== undefined ? { details: p.details } : {}),
    });
  };
  const skipIfUsed = async (p: Extract<Prepared, { ok: true }>): Promise<boolean> => {
    const existing = await linkRepository.findBySlug(domain.domain, p.key);
    if (!existing) return false;
    const mine = existing.workspaceId === options.workspaceId && existing.url === p.url;
    report.skipped++;
    report.skippedRows.push({ row: p.row, key: p.key, reason: mine ? 'already_imported' : 'slug_taken' });
    return true;
  };

  const seen = new Set<string>();
  for (let i = 0; i < records.length; i += BULK_MAX_ITEMS) {
    const batch = records.slice(i, i + BULK_MAX_ITEMS).map((r) => prepare(options.format, domain.domain, r));
    const valid: Array<Extract<Prepared, { ok: true }>> = [];
    for (const p of batch) {
      if (!p.ok) fail(p);
      else valid.push(p);
    }
    if (options.dryRun) {
      for (const p of valid) {
        if (seen.has(p.key)) {
          report.skipped++;
          report.skippedRows.push({ row: p.row, key: p.key, reason: 'already_imported' });
        } else if (!(await skipIfUsed(p))) report.created++;
        seen.add(p.key);
      }
    } else if (valid.length) {
      const results = await bulkCreateLinks(
        options.workspaceId,
        valid.map((p) => p.body),
        options.origin,
        { createdAt: valid.map((p) => p.createdAt) },
      );
      for (const [j, result] of results.entries()) {
        const p = required(valid[j], 'the import row of a bulk result');
        if (result.success) report.created++;
        else if (result.error.code === 'slug_taken' && (await skipIfUsed(p))) continue;
        else fail({ row: p.row, ...result.error });
      }
    }
    options.onProgress?.(batch.length);
  }
  return report;
};
