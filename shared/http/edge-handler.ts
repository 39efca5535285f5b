import middy, { type MiddlewareObj } from '@middy/core';
import { statusPage } from '@shared/edge/html/status-page';
import { log } from '@shared/util/logger';
import { countIfThrottled } from '@shared/util/metrics';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { observabilityMiddlewares } from './middleware/observability';
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
 * Builds an edge Lambda handler (the short-link edge is not v1: HTML pages and redirects, no
 * envelope, no credential): request id (`X-Request-Id`), then the function, errors as a 500 page.
 */
export const edgeHandler = (fn: (event: ApiEvent, context: ApiContext) => Promise<ApiResult>) =>
  middy<ApiEvent, ApiResult, Error, ApiContext>(fn).use(observabilityMiddlewares()).use(requestIdMiddleware()).use(edgeErrorMiddleware());
