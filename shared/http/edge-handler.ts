import middy, { type MiddlewareObj } from '@middy/core';
import { executionModeStandard } from '@middy/core/executionModeStandard';
import { executionModeStreamifyResponse } from '@middy/core/executionModeStreamifyResponse';
import { statusPage } from '@shared/edge/html/status-page';
import { log } from '@shared/util/logger';
import { countIfThrottled } from '@shared/util/metrics';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { observabilityMiddlewares } from './middleware/observability';
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

/**
 * The edge's Lambdas are CloudFront's origins through function URLs with invoke mode
 * RESPONSE_STREAM: Middy's streamify mode writes the status and headers first, then the body
 * (`awslambda.streamifyResponse`). The Lambda runtime provides the `awslambda` global; the local
 * stack and the bench install the same global (shared/local/lambda-streaming.ts), so the handler
 * runs streamed everywhere it is served. A process without it (a unit test importing the module)
 * gets the plain buffered handler. (The SDK's invoke store also creates an `awslambda` object, so
 * the check is for `streamifyResponse` itself.)
 */
const executionMode = () =>
  typeof (globalThis as { awslambda?: { streamifyResponse?: unknown } }).awslambda?.streamifyResponse === 'function'
    ? executionModeStreamifyResponse
    : executionModeStandard;

/**
 * Builds an edge Lambda handler (the short-link edge is not v1: HTML pages and redirects, no
 * envelope, no credential): request id (`X-Request-Id`), the front door's origin-verify check,
 * then the function, errors as a 500 page.
 */
export const edgeHandler = (fn: (event: ApiEvent, context: ApiContext) => Promise<ApiResult>) =>
  middy<ApiEvent, ApiResult, Error, ApiContext>(fn, { executionMode: executionMode() })
    .use(observabilityMiddlewares())
    .use(requestIdMiddleware())
    .use(originVerifyMiddleware())
    .use(edgeErrorMiddleware());
