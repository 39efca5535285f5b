import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { eventRecordFields } from '@shared/events/event-record';
import { ANALYTICS_TABLE } from './analytics-sql';
import { log } from '@shared/util/logger';
import { AnalyticsUnavailableError, assertSafeId, type AnalyticsEngine, type AnalyticsRow, type QueryScope } from './analytics-engine';

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

const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

const DAY_DIR = /^dt=(\d{4}-\d{2}-\d{2})$/;
const HOUR_DIR = /^hour=\d{2}$/;
const FILE = /^[A-Za-z0-9_.-]+\.json$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/**
 * Partition pruning for the local lake: the files of ONE workspace's folder and only the days
 * of the window, found by listing folders whose names were validated. None: an empty list.
 */
export const lakeFilesFor = async (lakeDir: string, scope: QueryScope): Promise<string[]> => {
  const workspaceDir = path.join(lakeDir, 'events', `workspace_id=${assertSafeId(scope.workspaceId, 'workspace id')}`);
  const list = async (dir: string) => {
    try {
      return await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  };
  const files: string[] = [];
  for (const dayDir of (await list(workspaceDir)).sort()) {
    const day = DAY_DIR.exec(dayDir)?.[1];
    if (!day || day < scope.firstDay || day > scope.lastDay) continue;
    for (const hourDir of (await list(path.join(workspaceDir, dayDir))).sort()) {
      if (!HOUR_DIR.test(hourDir)) continue;
      for (const file of (await list(path.join(workspaceDir, dayDir, hourDir))).sort()) {
        if (FILE.test(file)) files.push(path.join(workspaceDir, dayDir, hourDir, file));
      }
    }
  }
  return files;
};

/** The `events` view of one query: read_json over the pruned file list, or an empty relation. */
const eventsViewSql = (files: string[]): string => {
  const hiveTypes = `{'workspace_id': 'VARCHAR', 'dt': 'VARCHAR', 'hour': 'VARCHAR'}`;
  if (files.length === 0) {
    const columns = eventRecordFields.map((name) => `CAST(NULL AS VARCHAR) AS "${name}"`);
    return `CREATE TEMP VIEW ${ANALYTICS_TABLE} AS SELECT ${columns.join(', ')}, CAST(NULL AS VARCHAR) AS workspace_id, CAST(NULL AS VARCHAR) AS dt, CAST(NULL AS VARCHAR) AS hour WHERE false`;
  }
  return `CREATE TEMP VIEW ${ANALYTICS_TABLE} AS SELECT * FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', hive_partitioning = true, hive_types = ${hiveTypes}, columns = ${jsonColumns()}, ignore_errors = true)`;
};

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

const getInstance = (): Promise<DuckDBInstance> => {
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

const toText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** DuckDB over the local lake (newline-delimited JSON in the Firehose partition layout). */
export const createDuckDbEngine = (lakeDir: string): AnalyticsEngine => ({
  name: 'duckdb',
  cacheTtlSeconds: 0,
  async query(query, scope): Promise<AnalyticsRow[]> {
    let files: string[];
    let connection: DuckDBConnection | undefined;
    try {
      const lake = await stat(lakeDir).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
      if (lake && !lake.isDirectory()) throw new Error(`LOCAL_LAKE_DIR is not a directory: ${lakeDir}`);
      files = lake ? await lakeFilesFor(lakeDir, scope) : [];
      connection = await (await getInstance()).connect();
      await connection.run(eventsViewSql(files));
    } catch (error) {
      connection?.closeSync();
      log('error', 'local analytics backend unavailable', { error: String(error) });
      throw new AnalyticsUnavailableError(undefined, error);
    }
    try {
      const prepared = await connection.prepare(query.sql);
      query.params.forEach((value, i) => prepared.bindVarchar(i + 1, value));
      const reader = await prepared.runAndReadAll();
      const names = reader.columnNames().map((n) => n.toLowerCase());
      return reader.getRows().map((row) => Object.fromEntries(names.map((n, i) => [n, toText(row[i])])));
    } finally {
      connection.closeSync();
    }
  },
});
