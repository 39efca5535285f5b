import middy from '@middy/core';
import type { AuthContext } from '@shared/auth/credential';
import { ownRoute } from '@shared/routes/own-route';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { legacyAuthMiddleware, type LegacyCredential } from './middleware/legacy-auth';
import { legacyEnvelopeMiddleware } from './middleware/legacy-envelope';
import { observabilityMiddlewares } from './middleware/observability';
import { rateLimitMiddleware } from './middleware/rate-limit';
import { requestIdMiddleware } from './middleware/request-id';
import { parseMultipartForm } from './multipart-form';

export interface LegacyHandlerSpec<F> {
  /** The route's handler name in the route table; credential and method come from there. */
  route: string;
  /** Decodes and validates the multipart form (throwing a LegacyError); POST routes only. */
  form?: (fields: Map<string, string>) => F;
}

export interface LegacyInput<F> {
  form: F;
  query: Record<string, string | undefined>;
  auth: AuthContext;
  requestId: string;
  event: ApiEvent;
}

/**
 * Builds a legacy (`/api/mobile/*`) Lambda handler, parallel to `v1Handler`: request id
 * (`X-Request-Id` is kept), the legacy envelope, legacy `api-key` auth, the workspace's legacy
 * rate limit, multipart form parsing
 * when `form` is given. The function returns the `data` of `{success:true, data}`.
 */
export const legacyHandler = <F = undefined>(
  spec: LegacyHandlerSpec<F>,
  fn: (input: LegacyInput<F>) => Promise<unknown>,
) => {
  const route = ownRoute(spec.route);
  const core = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const form = spec.form ? spec.form(await parseMultipartForm(event)) : (undefined as F);
    const data = await fn({
      form,
      query: event.queryStringParameters ?? {},
      auth: context.auth as AuthContext,
      requestId: context.requestId,
      event,
    });
    return data as ApiResult;
  };
  return middy<ApiEvent, ApiResult, Error, ApiContext>(core)
    .use(observabilityMiddlewares())
    .use(requestIdMiddleware())
    .use(legacyEnvelopeMiddleware())
    .use(legacyAuthMiddleware(route.credential as LegacyCredential, route.method))
    .use(rateLimitMiddleware('legacy'));
};
