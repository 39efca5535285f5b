import type { MiddlewareObj } from '@middy/core';
import { isAppError } from '@shared/errors/app-error';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { errorResult, internalError } from '@shared/http/responses';
import { log } from '@shared/util/logger';
import { countIfThrottled } from '@shared/util/metrics';

/** The workspace's rate-limit headers (middleware/rate-limit.ts) on an answer of a limited route. */
export const withRateLimitHeaders = (
  result: ApiResult,
  context: Pick<ApiContext, 'rateLimitHeaders'> | undefined,
): ApiResult =>
  context?.rateLimitHeaders ? { ...result, headers: { ...result.headers, ...context.rateLimitHeaders } } : result;

/**
 * The v1 envelope around a route's function: its reply, already in the success envelope
 * `{success:true,data,pagination?,requestId}` (v1-handler.ts, `successResult`), gets the rate-limit
 * headers; typed errors become `{success:false,error:{code,message,details?},requestId}`.
 * Anything else is a bug: logged with the request id, answered with a generic 500.
 */
export const v1EnvelopeMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    if (request.response) request.response = withRateLimitHeaders(request.response, request.context);
  },
  onError: (request) => {
    const { error } = request;
    // Unset when the chain failed before the request-id middleware ran.
    const requestId = (request.context as Partial<ApiContext>).requestId ?? 'unknown';
    if (isAppError(error)) {
      if (error.status >= 500) log('error', error.message, { requestId, code: error.code });
      request.response = withRateLimitHeaders(errorResult(error, requestId), request.context);
      return;
    }
    countIfThrottled(error, 'DynamoDB');
    log('error', 'Unhandled error', {
      requestId,
      route: request.event.routeKey,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    request.response = withRateLimitHeaders(errorResult(internalError(), requestId), request.context);
  },
});
