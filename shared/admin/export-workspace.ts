/**
 * `admin export-workspace`: a workspace's data as JSON Lines files in one folder. Table
 * entities as the API shows them (never key hashes, password hashes or webhook secrets);
 * events from the lake through the analytics engine (Athena deployed, DuckDB locally), every
 * event of the lake's retention, newest first, duplicates dropped as analytics drop them.
 */
import { mkdir, writeFile, appendFile } from 'node:fs/promises';
import { toAuditEntryResource, type AuditEntry } from '@shared/audit/audit-entry';
import path from 'node:path';
import { getAnalyticsEngine } from '@shared/analytics/query/analytics-backend';
import { rawEventFrom } from '@shared/analytics/query/analytics-rows';
import { exportPageQuery, type ExportPosition } from '@shared/analytics/query/analytics-sql';
import { lakeReadBounds } from '@shared/analytics/query/raw-read';
import type { LinkRecord } from '@shared/links/link-record';
import { toLinkResource } from '@shared/links/link-view';
import { collectWorkspaceItems, type TableItem, type WalkOptions } from './workspace-items';

/** The lake bucket's expiration (lib/event-lake.ts): older events no longer exist. */
export const LAKE_RETENTION_DAYS = 400;
const EVENTS_PAGE = 1000;
const EXPORT_PAGE_DEADLINE_MS = 5 * 60_000;
const DAY = 86_400_000;

const stripKeys = ({
  pk: _pk,
  sk: _sk,
  type: _t,
  ttl: _ttl,
  gsi1pk: _a,
  gsi1sk: _b,
  gsi2pk: _c,
  gsi2sk: _d,
  gsi3pk: _e,
  gsi3sk: _f,
  ...rest
}: TableItem) => rest;

/** Each exported file: which items go in it and how each is shown. */
const tableFiles: Record<
  string,
  { type: string; pick?: (item: TableItem) => boolean; view: (item: TableItem) => unknown }
> = {
  'links.jsonl': {
    type: 'LINK',
    pick: (i) => i.deepLinkAppId == null,
    view: (i) => toLinkResource(stripKeys(i) as unknown as LinkRecord),
  },
  'deep-links.jsonl': {
    type: 'LINK',
    pick: (i) => i.deepLinkAppId != null,
    view: (i) => toLinkResource(stripKeys(i) as unknown as LinkRecord),
  },
  'domains.jsonl': { type: 'DOMAIN', view: stripKeys },
  'apps.jsonl': { type: 'APP', view: stripKeys },
  'tags.jsonl': { type: 'TAG', view: stripKeys },
  'webhook-endpoints.jsonl': {
    type: 'WEBHOOK',
    view: (i) => {
      const { secret: _s, previousSecret: _p, ...rest } = stripKeys(i);
      return rest;
    },
  },
  'api-keys.jsonl': {
    type: 'APIKEY',
    view: (i) => {
      const { keyHash: _h, ...rest } = stripKeys(i);
      return rest;
    },
  },
  'workspace.jsonl': { type: 'WORKSPACE', view: stripKeys },
  'audit-log.jsonl': { type: 'AUDIT', view: (i) => toAuditEntryResource(stripKeys(i) as unknown as AuditEntry) },
};

export interface WorkspaceExport {
  workspaceId: string;
  out: string;
  /** Lines per file written. */
  files: Record<string, number>;
}

export interface ExportOptions extends WalkOptions {
  now?: Date;
  /** Called with the events written so far (progress). */
  onEvents?: (n: number) => void;
}

export const exportWorkspace = async (
  workspaceId: string,
  out: string,
  options: ExportOptions = {},
): Promise<WorkspaceExport> => {
  await mkdir(out, { recursive: true });
  const { items } = await collectWorkspaceItems(workspaceId, options);
  const files: Record<string, number> = {};
  for (const [file, spec] of Object.entries(tableFiles)) {
    const rows = items
      .filter((i) => i.type === spec.type && (spec.pick?.(i) ?? true))
      .sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`))
      .map(spec.view);
    await writeFile(path.join(out, file), rows.map((r) => JSON.stringify(r) + '\n').join(''));
    files[file] = rows.length;
  }
  files['events.jsonl'] = await exportEvents(workspaceId, path.join(out, 'events.jsonl'), options);
  return { workspaceId, out, files };
};

/** Every event of the lake's retention, a page at a time (the API export's seek query). */
const exportEvents = async (workspaceId: string, file: string, options: ExportOptions): Promise<number> => {
  const now = options.now ?? new Date();
  const start = new Date(Math.floor(now.getTime() / DAY) * DAY - LAKE_RETENTION_DAYS * DAY);
  const end = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 60_000);
  const window = {
    start: start.toISOString(),
    end: end.toISOString(),
    firstDay: start.toISOString().slice(0, 10),
    lastDay: new Date(end.getTime() - 1).toISOString().slice(0, 10),
  };
  // Merged days from the daily files, as the API reads them (raw-read.ts).
  const { mergedBefore } = await lakeReadBounds(getAnalyticsEngine(), now);
  const filter = { workspaceId, scope: { kind: 'workspace' } as const, window, mergedBefore };
  await writeFile(file, '');
  let after: ExportPosition | null = null;
  let written = 0;
  for (;;) {
    const rows = await getAnalyticsEngine().query(exportPageQuery(filter, EVENTS_PAGE, after), {
      workspaceId,
      firstDay: window.firstDay,
      lastDay: window.lastDay,
      mergedBefore,
      // Each page on its own deadline, longer than an API request's: an operator's export may scan 400 days.
      deadline: Date.now() + EXPORT_PAGE_DEADLINE_MS,
    });
    const events = rows.map(rawEventFrom);
    if (events.length > 0) await appendFile(file, events.map((e) => JSON.stringify(e) + '\n').join(''));
    written += events.length;
    options.onEvents?.(written);
    const last = events.at(-1);
    if (events.length < EVENTS_PAGE || !last) return written;
    after = { timestamp: last.timestamp, eventId: last.eventId };
  }
};
