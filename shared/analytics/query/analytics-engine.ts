import { AppError } from '@shared/errors/app-error';
import type { SqlQuery } from './analytics-sql';

/** A result row: column name (lower case) -> text value or null, whatever the engine. */
export type AnalyticsRow = Record<string, string | null>;

/** Facts about the query an engine needs to read only what the query may touch. */
export interface QueryScope {
  workspaceId: string;
  firstDay: string;
  lastDay: string;
  /** Raw partitions are read only from this hour's start on (ISO; rawReadFrom in raw-read.ts); undefined: all of the window's. */
  rawFrom?: string;
  /** Days before this one are read from the merged daily files (the watermark's mergedBefore); undefined: none. */
  mergedBefore?: string;
  /** Epoch ms by which the whole request must be answered (analyticsDeadline(), taken once at its start). */
  deadline?: number;
}

/**
 * One deadline for a whole analytics request, taken when its domain function starts (right
 * after the handler's auth): every query's start, polls and result pages fit in it. Below the
 * function's 29 s timeout and API Gateway's 30 s, with room for auth and the response.
 */
export const ANALYTICS_DEADLINE_MS = 25_000;

export const analyticsDeadline = (startedAt = Date.now()): number => startedAt + ANALYTICS_DEADLINE_MS;

/** The scope's deadline, or one starting now for a query run on its own. */
export const deadlineOf = (scope: QueryScope, now: () => number = Date.now): number =>
  scope.deadline ?? analyticsDeadline(now());

/**
 * Runs the analytics SQL (analytics-sql.ts) with its `?` parameters. Two implementations:
 * Athena (deployed) and DuckDB over the local lake. Failures of the backend itself (not
 * configured, unreachable, not initialized) are `AnalyticsUnavailableError` (503).
 */
export interface AnalyticsEngine {
  readonly name: 'athena' | 'duckdb';
  /** Seconds a computed answer may be served from the table cache; 0: never cache. */
  readonly cacheTtlSeconds: number;
  query(query: SqlQuery, scope: QueryScope): Promise<AnalyticsRow[]>;
  /** The compaction watermark (ISO), or undefined when none is recorded or it cannot be read. */
  watermark(): Promise<string | undefined>;
  /** The daily merge's boundary (`YYYY-MM-DD`: earlier days are in the daily files), or undefined when none is recorded. */
  mergedBefore?(): Promise<string | undefined>;
}

export class AnalyticsUnavailableError extends AppError {
  constructor(message = 'Analytics are temporarily unavailable; try again later', cause?: unknown) {
    super('analytics_unavailable', message);
    if (cause !== undefined) this.cause = cause;
  }
}

/** Tenant ids that may be used in a lake path (DuckDB) or a query: no quotes, slashes or dots. */
export const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const assertSafeId = (value: string, what: string): string => {
  if (!SAFE_ID.test(value)) throw new Error(`Unsafe ${what} for an analytics query`);
  return value;
};
