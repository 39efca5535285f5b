import middy, { type MiddlewareObj } from '@middy/core';
import { executionModeStandard } from '@middy/core/executionModeStandard';
import { executionModeStreamifyResponse } from '@middy/core/executionModeStreamifyResponse';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Writable } from 'node:stream';
import { statusPage } from '@shared/edge/html/status-page';
import { log, logger } from '@shared/util/logger';
import { countIfThrottled, metrics } from '@shared/util/metrics';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { withAfterResponse } from './after-response';
import { originVerifyMiddleware } from './middleware/origin-verify';
import { requestIdMiddleware } from './middleware/request-id';

/** Any failure on the edge: logged with the request id, answered with a plain 500 page (no stack, no internals). */
const edgeErrorMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  onError: (request) => {
    const error = request.error;
    countIfThrottled(error, 'DynamoDB');
    log('error', 'edge request failed', {
      requestId: request.context.requestId,
      route: request.event.routeKey,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    request.response = statusPage(500);
  },
});

interface AwsLambdaGlobal {
  streamifyResponse?: <F>(fn: F) => F;
}
const awsLambdaGlobal = () => (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;

/**
 * The runtime's `streamifyResponse`, bound to its global, when this process is Lambda's Node.js
 * runtime (or a stand-in for it): the runtime provides the `awslambda` global with
 * `streamifyResponse`; the local stack and the bench install the same global
 * (shared/local/lambda-streaming.ts). The SDK's invoke store also creates an `awslambda` object,
 * so the check is for `streamifyResponse` itself. Undefined elsewhere.
 */
const runtimeStreamify = (): (<F>(fn: F) => F) | undefined => {
  const runtime = awsLambdaGlobal();
  const streamify = runtime?.streamifyResponse;
  return typeof streamify === 'function' ? streamify.bind(runtime) : undefined;
};

type StreamedHandler = (event: ApiEvent, stream: Writable, context: ApiContext) => Promise<void>;
type BufferedHandler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

/**
 * Builds an edge Lambda handler (the short-link edge is not v1: HTML pages and redirects, no
 * envelope, no credential): request id (`X-Request-Id`), the front door's origin-verify check,
 * then the function, errors as a 500 page.
 *
 * The edge's Lambdas are CloudFront's origins through function URLs with invoke mode
 * RESPONSE_STREAM: Middy's streamify mode writes the status and headers, then the body, and ends
 * the response stream; the visitor has the whole answer then. Work the function handed to
 * `afterResponse` (shared/http/after-response.ts: the click's recording) is awaited only after
 * that, in the same invocation, which lasts (and is billed) until it settles (docs/edge.md, "After
 * the response"). Metrics a request added (failure paths only) are written as one EMF line at
 * the very end.
 *
 * A process without the streaming runtime (a unit test importing the module) gets the plain
 * buffered handler: a buffered Lambda is frozen once it returns, so it awaits the after-response
 * work before returning the response.
 */
export const edgeHandler = (fn: (event: ApiEvent, context: ApiContext) => Promise<ApiResult>) => {
  const streamify = runtimeStreamify();
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>(fn, {
    executionMode: streamify ? executionModeStreamifyResponse : executionModeStandard,
  })
    .use(
      injectLambdaContext(logger, { resetKeys: true }) as unknown as MiddlewareObj<
        ApiEvent,
        ApiResult,
        Error,
        ApiContext
      >,
    )
    .use(requestIdMiddleware())
    .use(originVerifyMiddleware())
    .use(edgeErrorMiddleware());

  /** One invocation: the chain (its response sent), then the after-response work, then the metrics. */
  const invocation = async <T>(run: () => Promise<T>): Promise<T> => {
    const { result, settle } = withAfterResponse(run);
    try {
      return await result;
    } finally {
      await settle();
      metrics.publishStoredMetrics();
    }
  };

  if (streamify) {
    const streaming: StreamedHandler = (event, stream, context) => {
      // The Node.js runtime waits for the event loop to drain before ending a streamed invocation
      // (its streaming context defaults this to true): a stalled write left on the loop would
      // keep the invocation alive to its timeout. The invocation ends when `invocation` settles.
      context.callbackWaitsForEmptyEventLoop = false;
      return invocation(() => (chain as unknown as StreamedHandler)(event, stream, context));
    };
    return streamify(streaming) as unknown as BufferedHandler;
  }
  const buffered: BufferedHandler = (event, context) => invocation(() => chain(event, context));
  return buffered;
};
