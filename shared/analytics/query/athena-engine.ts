import { randomUUID } from 'node:crypto';
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from '@aws-sdk/client-athena';
import { log } from '@shared/util/logger';
import { AnalyticsUnavailableError, deadlineOf, type AnalyticsEngine, type AnalyticsRow } from './analytics-engine';
import type { AthenaSender } from '../athena-client';
import type { SqlQuery } from './analytics-sql';
import { retry } from '@shared/util/retry';

export interface AthenaEngineOptions {
  /** The official Athena client (athena-client.ts), or a test double of its `send`. */
  athena: AthenaSender;
  workgroup: string;
  database: string;
  /** How long a computed dashboard answer is served from the table cache (analytics-cache.ts). */
  cacheMinutes?: number;
  /** First poll delay; each next poll waits twice as long, up to maxPollIntervalMs. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /**
   * Reads the compaction watermark (compacted/_watermark.json in the lake bucket; cachedWatermarkReader
   * in raw-read.ts). Without it, queries read raw partitions over their whole range.
   */
  readWatermark?: () => Promise<string | undefined>;
  /** Reads the daily merge's boundary from the same object (`mergedBefore`); without it, no day is read from the daily files. */
  readMergedBefore?: () => Promise<string | undefined>;
}

/**
 * Athena execution parameters are SQL literals, substituted by Athena for the `?` in order
 * (not spliced into the query text by us): a string is a quoted literal with quotes doubled.
 */
export const athenaStringLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Result reuse is OFF, by construction: Athena reuses a result when the query TEXT matches, and
 * every tenant value is an execution parameter, so two workspaces' queries share one text.
 * Repeated dashboard views are served by the table cache instead (keyed by workspace).
 */
export const RESULT_REUSE_OFF = { ResultReuseByAgeConfiguration: { Enabled: false } } as const;

export interface AthenaStatementOptions {
  athena: AthenaSender;
  workgroup: string;
  database: string;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** A poll that found the query still running (the poll is retried). */
class QueryRunning extends Error {
  override name = 'QueryRunning';
}

/** Why a statement did not complete (logged; the analytics routes answer 503, compaction retries next run). */
export class AthenaStatementError extends AnalyticsUnavailableError {}

/**
 * Runs one statement on Athena by `deadline` (epoch ms): StartQueryExecution (bound parameters
 * in WHERE only, no result reuse, the workgroup's enforced output and bytes-scanned cutoff), poll
 * GetQueryExecution with exponential backoff, then (`results`) page GetQueryResults. Each SDK call
 * is aborted at the deadline; a query still running then, or whose poll fails, is stopped.
 * Returns the rows (none without `results`: UNLOAD writes files, not a result set).
 */
export const runAthenaStatement = async (
  options: AthenaStatementOptions,
  query: SqlQuery,
  deadline: number,
  { results = true }: { results?: boolean } = {},
): Promise<AnalyticsRow[]> => {
  const firstPollMs = options.pollIntervalMs ?? 100;
  const maxPollMs = options.maxPollIntervalMs ?? 1_000;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const { athena } = options;

  const unavailable = (message: string, fields: Record<string, unknown>, cause?: unknown) => {
    log('error', message, fields);
    return new AthenaStatementError(undefined, cause);
  };
  /** One SDK call, aborted when the deadline passes. */
  const call = async <T>(what: string, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> => {
    const remaining = deadline - now();
    if (remaining <= 0) throw unavailable('athena deadline passed', { call: what });
    try {
      return await send(AbortSignal.timeout(remaining));
    } catch (error) {
      throw unavailable('athena call failed', { call: what, error: String(error) }, error);
    }
  };

  const started = await call('StartQueryExecution', (abortSignal) =>
    athena.send(
      new StartQueryExecutionCommand({
        QueryString: query.sql,
        ClientRequestToken: randomUUID(),
        ExecutionParameters: query.params.length > 0 ? query.params.map(athenaStringLiteral) : undefined,
        QueryExecutionContext: { Database: options.database, Catalog: 'AwsDataCatalog' },
        WorkGroup: options.workgroup,
        ResultReuseConfiguration: RESULT_REUSE_OFF,
      }),
      { abortSignal },
    ),
  );
  const id = started.QueryExecutionId;
  if (!id) throw unavailable('athena returned no query id', {});

  // Polled through the one retry helper (p-retry, shared/util/retry.ts): a running query is a
  // failed attempt, waited for 100 ms doubling to 1 s, never past the deadline.
  await retry(
    async () => {
      const { QueryExecution: execution } = await call('GetQueryExecution', (abortSignal) =>
        athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }), { abortSignal }),
      ).catch(async (error: unknown) => {
        await athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
        throw error;
      });
      const state = execution?.Status?.State;
      if (state === 'SUCCEEDED') return;
      if (state === 'FAILED' || state === 'CANCELLED') {
        // e.g. TABLE_NOT_FOUND (not initialized), bytes-scanned cutoff, S3 access.
        throw unavailable('athena query failed', {
          queryExecutionId: id,
          state,
          reason: execution?.Status?.StateChangeReason,
          error: execution?.Status?.AthenaError,
        });
      }
      throw new QueryRunning();
    },
    {
      attempts: Infinity,
      retryOn: (error) => error instanceof QueryRunning,
      pause: async (attempt) => {
        const remaining = deadline - now();
        if (remaining <= 0) {
          await athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
          throw unavailable('athena query timed out', { queryExecutionId: id });
        }
        const pollMs = attempt === 1 ? firstPollMs : Math.min(firstPollMs * 2 ** (attempt - 1), maxPollMs);
        await sleep(Math.min(pollMs, remaining));
      },
    },
  );
  if (!results) return [];

  const rows: AnalyticsRow[] = [];
  let names: string[] | undefined;
  let nextToken: string | undefined;
  let first = true;
  do {
    const page: GetQueryResultsCommandOutput = await call('GetQueryResults', (abortSignal) =>
      athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: nextToken, MaxResults: 1000 }), {
        abortSignal,
      }),
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
};

/**
 * Athena over the Glue tables of the event lake (runAthenaStatement), all of a request's queries
 * within its one deadline (QueryScope.deadline). The backend failing in any way is 503
 * analytics_unavailable.
 */
export const createAthenaEngine = (options: AthenaEngineOptions): AnalyticsEngine => {
  const cacheMinutes = options.cacheMinutes ?? 5;
  const now = options.now ?? Date.now;
  return {
    name: 'athena',
    cacheTtlSeconds: cacheMinutes * 60,
    query: (query, scope) => runAthenaStatement(options, query, deadlineOf(scope, now)),
    watermark: () => options.readWatermark?.() ?? Promise.resolve(undefined),
    mergedBefore: () => options.readMergedBefore?.() ?? Promise.resolve(undefined),
  };
};
