import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getConfig } from '@shared/config/config';
import { retryConflicts } from './conflict-retry';

let client: DynamoDBDocumentClient | undefined;

/**
 * Connection and request timeouts of every DynamoDB call (the SDK's defaults have no request
 * timeout: a stalled connection would hold the function until Lambda kills it). A single-item
 * call answers in single-digit milliseconds; 1 s to connect and 2 s per attempt are far above
 * that and still leave the SDK's retries inside a 10 s function (docs/operations.md).
 */
export const DYNAMODB_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000 } as const;

/**
 * Locally every handler shares one process, one client and its 50 sockets, and DynamoDB Local
 * (a JVM on the same cores) answers in tens of milliseconds: a request timer that starts while
 * the request waits for a socket would fire under a test's load where a Lambda (one request
 * per instance) never waits. The fault proxy's stalls are what tests use to see timeouts.
 */
export const LOCAL_DYNAMODB_TIMEOUTS = { connectionTimeout: 5_000, requestTimeout: 8_000 } as const;

/**
 * One document client per process (module scope), created on first use. Every command goes
 * through `retryConflicts` (shared/db/conflict-retry.ts): a transaction conflict is sent again
 * with a jittered backoff, which the SDK's own retries never do.
 */
export const getDocumentClient = (): DynamoDBDocumentClient => {
  if (!client) {
    const config = getConfig();
    const base = new DynamoDBClient({
      region: config.AWS_REGION,
      requestHandler: {
        ...(config.DYNAMODB_ENDPOINT ? LOCAL_DYNAMODB_TIMEOUTS : DYNAMODB_TIMEOUTS),
        throwOnRequestTimeout: true,
      },
      ...(config.DYNAMODB_ENDPOINT
        ? {
            endpoint: config.DYNAMODB_ENDPOINT,
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            maxAttempts: 2,
          }
        : {}),
    });
    base.middlewareStack.add((next) => (args) => retryConflicts(() => next(args)), {
      step: 'initialize',
      name: 'transactionConflictRetry',
      priority: 'high',
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return client;
};

export const tableName = (): string => getConfig().TABLE_NAME;
