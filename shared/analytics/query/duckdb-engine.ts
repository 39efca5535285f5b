import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { eventRecordFields } from '@shared/events/event-record';
import { ANALYTICS_TABLE, COMPACTED_TABLE, DAILY_TABLE, type SqlQuery } from './analytics-sql';
import {
  compactedPartitionKeys,
  compactedWorkspacePath,
  dailyPartitionKeys,
  dailyWorkspacePath,
  RAW_PREFIX,
  rawPartitionKeys,
  shardOf,
} from '../lake/lake-layout';
import { log } from '@shared/util/logger';
import { parseMergedBefore, parseWatermark, WATERMARK_KEY } from '../lake/compaction-plan';
import {
  AnalyticsUnavailableError,
  assertSafeId,
  type AnalyticsEngine,
  type AnalyticsRow,
  type QueryScope,
} from './analytics-engine';

/**
 * Trino (Athena) functions DuckDB lacks, as macros of the same name and meaning, so the very
 * same SQL text runs on both. (`date_trunc`, `count_if`, `grouping`, `row_number` exist in both.)
 */
export const trinoCompatibilityMacros = [
  // Trino: parse an ISO 8601 string (with offset) into a timestamp with time zone. DuckDB's core
  // cast to TIMESTAMP applies the offset and yields UTC (TIMESTAMPTZ would need the ICU extension).
  `CREATE OR REPLACE MACRO from_iso8601_timestamp(s) AS CAST(s AS TIMESTAMP)`,
  // Trino: format a timestamp as ISO 8601 (UTC, 'Z').
  `CREATE OR REPLACE MACRO to_iso8601(t) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%gZ')`,
];

/** The columns of the lake's JSON lines, from the one event schema: every field is text. */
const jsonColumns = () => `{${eventRecordFields.map((name) => `"${name}": 'VARCHAR'`).join(', ')}}`;

export const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

const DAY_DIR = /^dt=(\d{4}-\d{2}-\d{2})$/;
const HOUR_DIR = /^hour=\d{2}$/;
/** Raw objects: gzip JSON lines (`.json.gz`), or uncompressed ones written before the switch (`.json`). */
const RAW_FILE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.json(\.gz)?$/;
const COMPACTED_FILE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.parquet$/;
const MONTH_DIR = /^month=(\d{4}-\d{2})$/;
/** A merged day's file locally: `YYYY-MM-DD.parquet` (daily-merge.ts). */
const DAILY_FILE = /^(\d{4}-\d{2}-\d{2})\.parquet$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null | undefined)?.code === 'ENOENT';

const listDir = async (dir: string) => {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
};

/** The files one query may read: the workspace's raw shard and its compacted folder, the window's days. */
export interface LakeFiles {
  raw: string[];
  compacted: string[];
  /** Merged days' files (days before scope.mergedBefore). */
  daily: string[];
}

/**
 * Partition pruning for the local lake, by listing folders whose names were validated: the raw
 * files of the workspace's shard and the window's days, and the workspace's compacted days.
 */
export const lakeFilesFor = async (lakeDir: string, scope: QueryScope): Promise<LakeFiles> => {
  const workspaceId = assertSafeId(scope.workspaceId, 'workspace id');
  const inWindow = (dayDir: string) => {
    const day = DAY_DIR.exec(dayDir)?.[1];
    return day !== undefined && day >= scope.firstDay && day <= scope.lastDay;
  };
  // Raw hours from scope.rawFrom on (the compaction watermark, raw-read.ts): earlier ones are compacted.
  const rawFromHour = scope.rawFrom?.slice(0, 13);
  const rawWanted = (dayDir: string, hourDir: string) =>
    HOUR_DIR.test(hourDir) && (rawFromHour === undefined || `${dayDir.slice(3)}T${hourDir.slice(5)}` >= rawFromHour);
  const raw: string[] = [];
  const shardDir = path.join(lakeDir, `${RAW_PREFIX}shard=${shardOf(workspaceId)}`);
  const rawDays = (await listDir(shardDir))
    .filter(inWindow)
    .filter((d) => rawFromHour === undefined || d.slice(3) >= rawFromHour.slice(0, 10));
  for (const dayDir of rawDays) {
    for (const hourDir of (await listDir(path.join(shardDir, dayDir))).filter((h) => rawWanted(dayDir, h))) {
      const dir = path.join(shardDir, dayDir, hourDir);
      for (const file of await listDir(dir)) if (RAW_FILE.test(file)) raw.push(path.join(dir, file));
    }
  }
  // Hourly files of the days not merged yet; merged days from their daily files (one per day).
  const merged = scope.mergedBefore;
  const compacted: string[] = [];
  const workspaceDir = path.join(lakeDir, compactedWorkspacePath(workspaceId));
  for (const dayDir of (await listDir(workspaceDir)).filter(inWindow)) {
    if (merged !== undefined && dayDir.slice(3) < merged) continue;
    const dir = path.join(workspaceDir, dayDir);
    for (const file of await listDir(dir)) if (COMPACTED_FILE.test(file)) compacted.push(path.join(dir, file));
  }
  const daily: string[] = [];
  if (merged !== undefined) {
    const dailyDir = path.join(lakeDir, dailyWorkspacePath(workspaceId));
    const months = (await listDir(dailyDir)).filter((m) => {
      const month = MONTH_DIR.exec(m)?.[1];
      return month !== undefined && month >= scope.firstDay.slice(0, 7) && month <= scope.lastDay.slice(0, 7);
    });
    for (const monthDir of months) {
      const dir = path.join(dailyDir, monthDir);
      for (const file of await listDir(dir)) {
        const day = DAILY_FILE.exec(file)?.[1];
        if (day !== undefined && day >= scope.firstDay && day <= scope.lastDay && day < merged)
          daily.push(path.join(dir, file));
      }
    }
  }
  return { raw, compacted, daily };
};

const emptyRelation = (partitions: readonly string[]) =>
  `SELECT ${[...eventRecordFields, ...partitions].map((name) => `CAST(NULL AS VARCHAR) AS "${name}"`).join(', ')} WHERE false`;

const hiveTypes = (partitions: readonly string[]) => `{${partitions.map((p) => `'${p}': 'VARCHAR'`).join(', ')}}`;

/**
 * read_json over raw files: newline-delimited, every field text, partitions from the path; gzip
 * is detected per file from its `.gz` extension (DuckDB's `compression = 'auto'`), so compressed
 * and older uncompressed objects read together.
 */
export const rawRelationSql = (files: string[], options: { filename?: boolean } = {}): string =>
  files.length === 0
    ? emptyRelation(options.filename ? [...rawPartitionKeys, 'filename'] : rawPartitionKeys)
    : `SELECT * FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', hive_partitioning = true, hive_types = ${hiveTypes(rawPartitionKeys)}, columns = ${jsonColumns()}, ignore_errors = true${options.filename ? ', filename = true' : ''})`;

/**
 * read_parquet over compacted files, partitions from the path (hourly: workspace_id, dt; daily:
 * workspace_id, month). Files are read by column name, and every event column is there even when
 * no file has it (files written before a column existed read it as null).
 */
export const compactedRelationSql = (
  files: string[],
  partitions: readonly string[] = compactedPartitionKeys,
): string =>
  files.length === 0
    ? emptyRelation(partitions)
    : `${emptyRelation(partitions)} UNION ALL BY NAME SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}], hive_partitioning = true, hive_types = ${hiveTypes(partitions)}, union_by_name = true)`;

/** read_parquet over merged daily files. */
export const dailyRelationSql = (files: string[]): string => compactedRelationSql(files, dailyPartitionKeys);

/** The two views of one query (the names the analytics SQL reads), over the pruned file lists. */
const viewsSql = (files: LakeFiles): string[] => [
  `CREATE OR REPLACE TEMP VIEW ${ANALYTICS_TABLE} AS ${rawRelationSql(files.raw)}`,
  `CREATE OR REPLACE TEMP VIEW ${COMPACTED_TABLE} AS ${compactedRelationSql(files.compacted)}`,
  `CREATE OR REPLACE TEMP VIEW ${DAILY_TABLE} AS ${dailyRelationSql(files.daily)}`,
];

type DuckDbModule = typeof import('@duckdb/node-api');

/**
 * Loaded at run time by a computed name so the Lambda bundles (which never run DuckDB) do not
 * pull in the native module; a missing module is "analytics not configured" (503).
 */
const loadDuckDb = async (): Promise<DuckDbModule> => {
  const name = ['@duckdb', 'node-api'].join('/');
  return (await import(name)) as DuckDbModule;
};

let instance: Promise<DuckDBInstance> | undefined;

export const getDuckDbInstance = (): Promise<DuckDBInstance> => {
  if (!instance) {
    instance = (async () => {
      const duck = await loadDuckDb();
      const created = await duck.DuckDBInstance.create(':memory:', { threads: '2' });
      const setup = await created.connect();
      try {
        for (const macro of trinoCompatibilityMacros) await setup.run(macro);
      } finally {
        setup.closeSync();
      }
      return created;
    })();
    instance.catch(() => (instance = undefined));
  }
  return instance;
};

const toText = (value: DuckDBValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);

class LakeChangedError extends Error {}

const runOnce = async (lakeDir: string, query: SqlQuery, scope: QueryScope): Promise<AnalyticsRow[]> => {
  let files: LakeFiles;
  let connection: DuckDBConnection | undefined;
  try {
    const lake = await stat(lakeDir).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (lake && !lake.isDirectory()) throw new Error(`LOCAL_LAKE_DIR is not a directory: ${lakeDir}`);
    files = lake ? await lakeFilesFor(lakeDir, scope) : { raw: [], compacted: [], daily: [] };
    connection = await (await getDuckDbInstance()).connect();
    for (const view of viewsSql(files)) await connection.run(view);
  } catch (error) {
    connection?.closeSync();
    log('error', 'local analytics backend unavailable', { error: String(error) });
    throw new AnalyticsUnavailableError(undefined, error);
  }
  try {
    const prepared = await connection.prepare(query.sql);
    query.params.forEach((value, i) => {
      prepared.bindVarchar(i + 1, value);
    });
    const reader = await prepared.runAndReadAll();
    const names = reader.columnNames().map((n) => n.toLowerCase());
    return reader.getRows().map((row) => Object.fromEntries(names.map((n, i) => [n, toText(row[i])])));
  } catch (error) {
    const gone = [...files.raw, ...files.compacted, ...files.daily].some((file) => !existsSync(file));
    if (gone) throw new LakeChangedError(String(error));
    throw error;
  } finally {
    connection.closeSync();
  }
};

const readLocalWatermarkBody = (lakeDir: string) =>
  readFile(path.join(lakeDir, ...WATERMARK_KEY.split('/')), 'utf8').catch(() => undefined);

/** The local lake's compaction watermark (compacted/_watermark.json), undefined when none was written or unreadable. */
export const readLocalWatermark = async (lakeDir: string): Promise<string | undefined> =>
  parseWatermark(await readLocalWatermarkBody(lakeDir));

/** The local lake's daily-merge boundary (the same object's mergedBefore), undefined when none. */
export const readLocalMergedBefore = async (lakeDir: string): Promise<string | undefined> =>
  parseMergedBefore(await readLocalWatermarkBody(lakeDir));

export interface DuckDbEngineOptions {
  /** Read raw partitions only past the compaction watermark (default true; false reads every raw hour of the window). */
  rawPastWatermark?: boolean;
}

/** DuckDB over the local lake: raw JSON lines and compacted Parquet, the layout of lake-layout.ts. */
export const createDuckDbEngine = (lakeDir: string, options: DuckDbEngineOptions = {}): AnalyticsEngine => ({
  name: 'duckdb',
  cacheTtlSeconds: 0,
  // Read on every request: a local file, and the local job rewrites it every 10 minutes.
  watermark: () => (options.rawPastWatermark === false ? Promise.resolve(undefined) : readLocalWatermark(lakeDir)),
  mergedBefore: () => readLocalMergedBefore(lakeDir),
  async query(query, scope): Promise<AnalyticsRow[]> {
    // A compaction run may remove raw files between the listing and the read (their events are
    // in the compacted file by then): list again and run once more.
    try {
      return await runOnce(lakeDir, query, scope);
    } catch (error) {
      if (!(error instanceof LakeChangedError)) throw error;
      return runOnce(lakeDir, query, scope);
    }
  },
});
