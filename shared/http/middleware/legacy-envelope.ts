import type { MiddlewareObj } from '@middy/core';
import { isAppError } from '@shared/errors/app-error';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { MultipartFormError } from '@shared/http/multipart-form';
import { JSON_HEADERS } from '@shared/http/responses';
import { isLegacyError, legacyErrors, LegacyError } from '@shared/legacy/legacy-error';
import { log } from '@shared/util/logger';
import { countIfThrottled } from '@shared/util/metrics';
import { withRateLimitHeaders } from './v1-envelope';

const legacyResult = (status: number, body: Record<string, unknown>): ApiResult => ({
  statusCode: status,
  headers: { ...JSON_HEADERS },
  body: JSON.stringify(body),
});

/** A legacy route's answer: its data as 200 `{success:true, data}` (no request id in the body). */
export const legacySuccess = (data: unknown): ApiResult => legacyResult(200, { success: true, data });

/** Any thrown error as the legacy error it answers with (unknown ones: null, a bug). */
const asLegacyError = (error: unknown): LegacyError | null => {
  if (isLegacyError(error)) return error;
  if (error instanceof MultipartFormError) return new LegacyError(error.status, error.message);
  if (isAppError(error) && error.status < 500) {
    return error.code === 'slug_taken' ? legacyErrors.slugExists() : new LegacyError(error.status, error.message);
  }
  return null;
};

/**
 * The legacy shapes (`{success, data}` / `{success:false, msg|error}`), no v1 envelope: a handler's data,
 * already answered 200 `{success:true, data}` (`legacySuccess`), gets the rate-limit headers; errors `{success:false, msg}` or `{success:false, error}` with their
 * status. Anything unexpected is logged with the request id and answered 500
 * `{success:false, msg:"Internal server error"}`.
 */
export const legacyEnvelopeMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    if (request.response) request.response = withRateLimitHeaders(request.response, request.context);
  },
  onError: (request) => {
    // Unset when the chain failed before the request-id middleware ran.
    const requestId = (request.context as Partial<ApiContext>).requestId ?? 'unknown';
    let legacy = asLegacyError(request.error);
    if (!legacy) {
      const { error } = request;
      countIfThrottled(error, 'DynamoDB');
      log('error', 'Unhandled error', {
        requestId,
        route: request.event.routeKey,
        error:
          error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      });
      legacy = legacyErrors.internal();
    }
    request.response = withRateLimitHeaders(
      legacyResult(legacy.status, { success: false, [legacy.field]: legacy.message }),
      request.context,
    );
  },
});
