import { randomUUID } from 'node:crypto';
import { createAwsJsonCall, withRetries, type AwsJsonCall, type AwsJsonCallOptions } from '@shared/aws/aws-json-call';

/*
 * The four Athena operations the engine uses (Athena API, JSON 1.1), with only the fields it
 * reads or sends. Athena's JSON carries timestamps as epoch seconds (numbers), not Dates as the
 * SDK client returns them; the engine uses none.
 */

export interface StartQueryExecutionInput {
  QueryString: string;
  /** Filled with a fresh UUID when absent (as the SDK client does): retries start one query. */
  ClientRequestToken?: string;
  QueryExecutionContext?: { Database?: string; Catalog?: string };
  WorkGroup?: string;
  ExecutionParameters?: string[];
  ResultReuseConfiguration?: { ResultReuseByAgeConfiguration?: { Enabled: boolean; MaxAgeInMinutes?: number } };
}

export interface StartQueryExecutionOutput {
  QueryExecutionId?: string;
}

export type QueryExecutionState = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface GetQueryExecutionOutput {
  QueryExecution?: {
    QueryExecutionId?: string;
    Status?: {
      State?: QueryExecutionState | (string & {});
      StateChangeReason?: string;
      AthenaError?: { ErrorCategory?: number; ErrorType?: number; Retryable?: boolean; ErrorMessage?: string };
    };
  };
}

export interface GetQueryResultsInput {
  QueryExecutionId: string;
  NextToken?: string;
  MaxResults?: number;
}

export interface GetQueryResultsOutput {
  UpdateCount?: number;
  ResultSet?: {
    Rows?: Array<{ Data?: Array<{ VarCharValue?: string }> }>;
    ResultSetMetadata?: { ColumnInfo?: Array<{ Name: string; Type: string }> };
  };
  NextToken?: string;
}

export interface AthenaApi {
  startQueryExecution(input: StartQueryExecutionInput): Promise<StartQueryExecutionOutput>;
  getQueryExecution(input: { QueryExecutionId: string }): Promise<GetQueryExecutionOutput>;
  getQueryResults(input: GetQueryResultsInput): Promise<GetQueryResultsOutput>;
  stopQueryExecution(input: { QueryExecutionId: string }): Promise<Record<string, never>>;
}

export interface AthenaApiOptions extends Omit<AwsJsonCallOptions, 'service' | 'targetPrefix'> {
  /** Attempts per call, default 1 (`withRetries`: throttling, 5xx and connection errors). */
  maxAttempts?: number;
}

/** Athena over an AWS JSON 1.1 call (default endpoint https://athena.<region>.amazonaws.com). */
export const athenaApiOver = (call: AwsJsonCall): AthenaApi => ({
  startQueryExecution: async (input) =>
    (await call('StartQueryExecution', { ...input, ClientRequestToken: input.ClientRequestToken ?? randomUUID() })) as StartQueryExecutionOutput,
  getQueryExecution: async (input) => (await call('GetQueryExecution', input)) as GetQueryExecutionOutput,
  getQueryResults: async (input) => (await call('GetQueryResults', input)) as GetQueryResultsOutput,
  stopQueryExecution: async (input) => (await call('StopQueryExecution', input)) as Record<string, never>,
});

/**
 * The Athena calls without @aws-sdk/client-athena: the client package carries the serializers and
 * schemas of every Athena operation, which put the analytics handlers at the cold-start budget's
 * limit (docs/benchmarks.md). Errors are named by their Athena type, as the SDK names them.
 */
export const createAthenaApi = ({ maxAttempts = 1, ...options }: AthenaApiOptions): AthenaApi =>
  athenaApiOver(withRetries(createAwsJsonCall({ ...options, service: 'athena', targetPrefix: 'AmazonAthena' }), maxAttempts));
