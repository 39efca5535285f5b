import { AthenaClient } from '@aws-sdk/client-athena';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** The Athena calls the engine makes: the official client's `send`. */
export type AthenaSender = Pick<AthenaClient, 'send'>;

export interface AthenaClientOptions {
  region: string;
  /** Tests: a loopback endpoint and fixed credentials. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** TCP connect limit: Athena's regional endpoint answers in milliseconds or is unreachable. */
export const ATHENA_CONNECTION_TIMEOUT_MS = 1_000;
/** One call's limit (StartQueryExecution, a poll, a result page); the request's deadline bounds the sum. */
export const ATHENA_REQUEST_TIMEOUT_MS = 5_000;
/** Attempts per call: throttling (TooManyRequestsException), 5xx and connection errors are retried with the SDK's standard backoff. */
export const ATHENA_MAX_ATTEMPTS = 3;

/**
 * The official @aws-sdk/client-athena with explicit timeouts and the standard retry strategy
 * (throttling retries with jittered backoff). StartQueryExecution carries a ClientRequestToken
 * the client fills in once per command, so a retry never starts a second query.
 */
export const createAthenaClient = (options: AthenaClientOptions): AthenaClient =>
  new AthenaClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: ATHENA_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: new NodeHttpHandler({
      connectionTimeout: ATHENA_CONNECTION_TIMEOUT_MS,
      requestTimeout: ATHENA_REQUEST_TIMEOUT_MS,
    }),
  });
