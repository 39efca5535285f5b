import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import type { AthenaSender } from '@shared/analytics/athena-client';
import { ANALYTICS_TABLE, COMPACTED_TABLE, DAILY_TABLE } from '@shared/analytics/query/analytics-sql';
import {
  compactedRelationSql,
  dailyRelationSql,
  getDuckDbInstance,
  rawRelationSql,
  sqlString,
} from '@shared/analytics/query/duckdb-engine';
import { COMPACTED_PREFIX, DAILY_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import { isRawObjectName } from '@shared/analytics/lake/raw-objects';

const walk = async (dir: string): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : Promise.resolve([path.join(dir, e.name)]))),
  );
  return nested.flat();
};

/** An execution parameter back to its value (Athena's are quoted literals, quotes doubled). */
const unquote = (literal: string) => literal.slice(1, -1).replaceAll("''", "'");

const UNLOAD =
  /^UNLOAD \(\n([\s\S]*)\n\) TO '(s3:\/\/[^']+)'\nWITH \(format = 'PARQUET', compression = 'ZSTD', partitioned_by = ARRAY\['workspace_id', '(dt|month)'\]\)$/;

/**
 * A stand-in for Athena that EXECUTES the statements it is sent, on DuckDB over a local lake
 * folder laid out like the bucket (`s3://<bucket>/` = `lakeDir`): `events` and
 * `events_compacted` are views over every raw and compacted file, the `?` are bound from
 * ExecutionParameters, and an UNLOAD's SELECT is written with DuckDB's partitioned COPY
 * (APPEND: new uuid-named files beside the existing ones, as a partitioned UNLOAD does).
 * `failAfterWrite(sql)`: the statement writes its files and then reports FAILED (Athena leaves
 * orphaned output on failure). Used to check what the compaction statements do, not Athena.
 */
export const duckDbAthena = (
  lakeDir: string,
  bucket: string,
  options: { failAfterWrite?: (sql: string) => boolean } = {},
) => {
  const results = new Map<
    string,
    { state: 'SUCCEEDED' | 'FAILED'; columns: string[]; rows: Array<Array<string | null>> }
  >();
  const statements: Array<{ sql: string; params: string[] }> = [];
  let next = 0;
  const execute = async (sql: string, params: string[]) => {
    const connection = await (await getDuckDbInstance()).connect();
    try {
      const files = await walk(lakeDir);
      const raw = files.filter(
        (f) => f.startsWith(path.join(lakeDir, RAW_PREFIX)) && isRawObjectName(f) && !path.basename(f).startsWith('.'),
      );
      const daily = files.filter((f) => f.startsWith(path.join(lakeDir, DAILY_PREFIX)) && f.endsWith('.parquet'));
      const compacted = files.filter(
        (f) =>
          f.startsWith(path.join(lakeDir, COMPACTED_PREFIX)) &&
          !f.startsWith(path.join(lakeDir, DAILY_PREFIX)) &&
          f.endsWith('.parquet'),
      );
      // Athena's "$path" pseudo-column: the object's s3://bucket/key.
      const root = path.join(lakeDir, path.sep);
      await connection.run(
        `CREATE OR REPLACE TEMP VIEW ${ANALYTICS_TABLE} AS SELECT * EXCLUDE (filename), ${sqlString(`s3://${bucket}/`)} || replace(filename[${root.length + 1}:], ${sqlString(path.sep)}, '/') AS "$path" FROM (${rawRelationSql(raw, { filename: true })})`,
      );
      // Athena's "$path" on the hourly table too (a merge statement may read a range of a day's objects).
      await connection.run(
        `CREATE OR REPLACE TEMP VIEW ${COMPACTED_TABLE} AS SELECT * EXCLUDE (filename), ${sqlString(`s3://${bucket}/`)} || replace(filename[${root.length + 1}:], ${sqlString(path.sep)}, '/') AS "$path" FROM (${compacted.length === 0 ? compactedRelationSql(compacted).replace('WHERE false', ', NULL AS filename WHERE false') : compactedRelationSql(compacted).replace('hive_partitioning = true', 'hive_partitioning = true, filename = true')})`,
      );
      await connection.run(`CREATE OR REPLACE TEMP VIEW ${DAILY_TABLE} AS ${dailyRelationSql(daily)}`);
      const unload = UNLOAD.exec(sql);
      if (unload) {
        const [, select, destination, partition] = unload as unknown as [string, string, string, string];
        const target = path.join(lakeDir, destination.replace(`s3://${bucket}/`, ''));
        const prepared = await connection.prepare(
          `COPY (${select}) TO ${sqlString(target)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (workspace_id, ${partition}), APPEND)`,
        );
        params.forEach((value, i) => {
          prepared.bindVarchar(i + 1, value);
        });
        await prepared.run();
        return { columns: [], rows: [] };
      }
      const prepared = await connection.prepare(sql);
      params.forEach((value, i) => {
        prepared.bindVarchar(i + 1, value);
      });
      const reader = await prepared.runAndReadAll();
      return {
        columns: reader.columnNames(),
        rows: reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v)))),
      };
    } finally {
      connection.closeSync();
    }
  };
  const athena: AthenaSender = {
    send: (async (command: unknown) => {
      if (command instanceof StartQueryExecutionCommand) {
        const sql = command.input.QueryString!;
        const params = (command.input.ExecutionParameters ?? []).map(unquote);
        statements.push({ sql, params });
        const id = `duck-${(next += 1)}`;
        const out = await execute(sql, params);
        results.set(id, { state: options.failAfterWrite?.(sql) ? 'FAILED' : 'SUCCEEDED', ...out });
        return { QueryExecutionId: id };
      }
      if (command instanceof GetQueryExecutionCommand) {
        const state = results.get(command.input.QueryExecutionId!)!.state;
        return {
          QueryExecution: {
            QueryExecutionId: command.input.QueryExecutionId,
            Status: { State: state, StateChangeReason: state === 'FAILED' ? 'injected failure' : undefined },
          },
        };
      }
      if (command instanceof GetQueryResultsCommand) {
        const { columns, rows } = results.get(command.input.QueryExecutionId!)!;
        const header = { Data: columns.map((c) => ({ VarCharValue: c })) };
        return {
          ResultSet: {
            Rows: [header, ...rows.map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) }))],
            ResultSetMetadata: { ColumnInfo: columns.map((c) => ({ Name: c, Type: 'varchar' })) },
          },
        };
      }
      if (command instanceof StopQueryExecutionCommand) return {};
      throw new Error(`unexpected command ${(command as object).constructor.name}`);
    }) as AthenaSender['send'],
  };
  return { athena, statements };
};
