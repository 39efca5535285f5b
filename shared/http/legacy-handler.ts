import middy from '@middy/core';
import type { AuthContext } from '@shared/auth/credential';
import type { LegacyRoute } from '@shared/routes/typed-route';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { legacyAuthMiddleware, type LegacyCredential } from './middleware/legacy-auth';
import { legacyEnvelopeMiddleware, legacySuccess } from './middleware/legacy-envelope';
import { observabilityMiddlewares } from './middleware/observability';
import { rateLimitMiddleware } from './middleware/rate-limit';
import { requestIdMiddleware } from './middleware/request-id';
import { parseMultipartForm } from './multipart-form';

export interface LegacyInput<F> {
  form: F;
  query: Record<string, string | undefined>;
  auth: AuthContext;
  requestId: string;
  event: ApiEvent;
}

/** The route's form, decoded from the multipart body (POST routes); undefined for a route without one. */
const formOf = async <F>(route: LegacyRoute<F>, event: ApiEvent): Promise<F | undefined> =>
  route.decodeForm ? route.decodeForm(await parseMultipartForm(event)) : undefined;

/**
 * Builds a legacy (`/api/mobile/*`) Lambda handler for a route (shared/routes/typed-route.ts),
 * parallel to `v1Handler`: request id (`X-Request-Id` is kept), the legacy envelope, legacy
 * `api-key` auth by the route's credential and method, the workspace's legacy rate limit,
 * multipart form parsing with the route's decoder. The function returns the `data` of
 * `{success:true, data}`.
 */
export const legacyHandler = <F, D>(route: LegacyRoute<F, D>, fn: (input: LegacyInput<F>) => Promise<D>) => {
  const core = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const form = await formOf(route, event);
    const data = await fn({
      form: form as F,
      query: event.queryStringParameters ?? {},
      auth: context.auth as AuthContext,
      requestId: context.requestId,
      event,
    });
    return legacySuccess(data);
  };
  return middy<ApiEvent, ApiResult, Error, ApiContext>(core)
    .use(observabilityMiddlewares())
    .use(requestIdMiddleware())
    .use(legacyEnvelopeMiddleware())
    .use(legacyAuthMiddleware(route.credential as LegacyCredential, route.method))
    .use(rateLimitMiddleware('legacy'));
};
