import type { MiddlewareObj } from '@middy/core';
import { normalizeOrigin } from '@shared/auth/publishable-restrictions';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';

/** Headers a browser client may send and read on `/v1/client/*`. */
export const CLIENT_ALLOWED_HEADERS = [
  'content-type',
  'x-publishable-key',
  'authorization',
  'x-service-environment',
  'x-service-platform',
  'x-request-id',
].join(', ');

export const corsHeadersFor = (origin: string): Record<string, string> => ({
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Expose-Headers': 'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After',
  Vary: 'Origin',
});

/**
 * CORS on the actual client request: the `Origin` is echoed only when it is one of the
 * authenticated browser key's own origins. Errors before that (401, origin refused) carry no
 * CORS header, so a browser on another origin reads nothing.
 */
export const clientCorsMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  const add = (request: { event: ApiEvent; response?: ApiResult | null; context: ApiContext }) => {
    const origin = normalizeOrigin(header(request.event, 'origin'));
    const restrictions = request.context.auth?.publishable;
    if (!request.response || !origin || restrictions?.platform !== 'browser') return;
    if (!restrictions.origins.map(normalizeOrigin).includes(origin)) return;
    request.response.headers = { ...request.response.headers, ...corsHeadersFor(origin) };
  };
  return { after: add, onError: add };
};
