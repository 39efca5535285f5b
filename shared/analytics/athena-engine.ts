import { log } from '@shared/util/logger';
import { AnalyticsUnavailableError, type AnalyticsEngine, type AnalyticsRow } from './analytics-engine';
import type { AthenaApi, GetQueryResultsOutput } from './athena-api';

export interface AthenaEngineOptions {
  /** The Athena calls (athena-api.ts). */
  athena: AthenaApi;
  workgroup: string;
  database: string;
  /** How long Athena may reuse a previous identical query's result (also the table-cache TTL). */
  reuseMinutes?: number;
  pollIntervalMs?: number;
  /** Give up (503) after this long; below the Lambda and API Gateway timeouts. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Athena execution parameters are SQL literals, substituted by Athena for the `?` in order
 * (not spliced into the query text by us): a string is a quoted literal with quotes doubled.
 */
export const athenaStringLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Athena over the Glue table of the event lake: StartQueryExecution (bound parameters, result
 * reuse, the workgroup's enforced output and bytes-scanned cutoff), poll GetQueryExecution,
 * page GetQueryResults. The backend failing in any way is 503 analytics_unavailable.
 */
export const createAthenaEngine = (options: AthenaEngineOptions): AnalyticsEngine => {
  const reuseMinutes = options.reuseMinutes ?? 5;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 25_000;
  const sleep = options.sleep ?? defaultSleep;
  const { athena } = options;

  const unavailable = (message: string, fields: Record<string, unknown>, cause?: unknown) => {
    log('error', message, fields);
    return new AnalyticsUnavailableError(undefined, cause);
  };

  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw unavailable('athena call failed', { call: what, error: String(error) }, error);
    }
  };

  return {
    name: 'athena',
    cacheTtlSeconds: reuseMinutes * 60,
    async query(query): Promise<AnalyticsRow[]> {
      const started = await call('StartQueryExecution', () =>
        athena.startQueryExecution({
          QueryString: query.sql,
          ExecutionParameters: query.params.length > 0 ? query.params.map(athenaStringLiteral) : undefined,
          QueryExecutionContext: { Database: options.database, Catalog: 'AwsDataCatalog' },
          WorkGroup: options.workgroup,
          ResultReuseConfiguration: { ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: reuseMinutes } },
        }),
      );
      const id = started.QueryExecutionId;
      if (!id) throw unavailable('athena returned no query id', {});

      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { QueryExecution: execution } = await call('GetQueryExecution', () => athena.getQueryExecution({ QueryExecutionId: id }));
        const state = execution?.Status?.State;
        if (state === 'SUCCEEDED') break;
        if (state === 'FAILED' || state === 'CANCELLED') {
          // e.g. TABLE_NOT_FOUND (not initialized), bytes-scanned cutoff, S3 access: a reporting outage.
          throw unavailable('athena query failed', { queryExecutionId: id, state, reason: execution?.Status?.StateChangeReason, error: execution?.Status?.AthenaError });
        }
        if (Date.now() >= deadline) {
          await athena.stopQueryExecution({ QueryExecutionId: id }).catch(() => undefined);
          throw unavailable('athena query timed out', { queryExecutionId: id, timeoutMs });
        }
        await sleep(pollIntervalMs);
      }

      const rows: AnalyticsRow[] = [];
      let names: string[] | undefined;
      let nextToken: string | undefined;
      let first = true;
      do {
        const page: GetQueryResultsOutput = await call('GetQueryResults', () =>
          athena.getQueryResults({ QueryExecutionId: id, NextToken: nextToken, MaxResults: 1000 }),
        );
        names ??= (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => (c.Name ?? '').toLowerCase());
        const data = page.ResultSet?.Rows ?? [];
        // The first row of the first page repeats the column names (SELECT results).
        for (const row of first ? data.slice(1) : data) {
          const cells = row.Data ?? [];
          rows.push(Object.fromEntries(names.map((n, i) => [n, cells[i]?.VarCharValue ?? null])));
        }
        first = false;
        nextToken = page.NextToken;
      } while (nextToken);
      return rows;
    },
  };
};
