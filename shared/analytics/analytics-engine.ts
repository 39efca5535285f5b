import { AppError } from '@shared/errors/app-error';
import type { SqlQuery } from './analytics-sql';

/** A result row: column name (lower case) -> text value or null, whatever the engine. */
export type AnalyticsRow = Record<string, string | null>;

/** Facts about the query an engine needs to read only what the query may touch. */
export interface QueryScope {
  workspaceId: string;
  firstDay: string;
  lastDay: string;
}

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
