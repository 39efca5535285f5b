import middy from '@middy/core';
import type { output } from 'zod/v4/core';
import type { AuthContext } from '@shared/auth/credential';
import { withIdempotency } from '@shared/idempotency/idempotency';
import type { RequestSchemas, V1Route } from '@shared/routes/typed-route';
import type { ApiContext, ApiEvent, ApiReply, ApiResult } from './api-types';
import { header } from './api-types';
import { authMiddlewareFor, type V1Credential } from './middleware/auth';
import { clientCorsMiddleware } from './middleware/client-cors';
import { consoleOriginMiddleware } from './middleware/console-origin';
import { jsonBodyMiddleware } from './middleware/json-body';
import { observabilityMiddlewares } from './middleware/observability';
import { rateLimitMiddleware } from './middleware/rate-limit';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';
import { requestIdMiddleware } from './middleware/request-id';
import { v1EnvelopeMiddleware } from './middleware/v1-envelope';
import { successResult } from './responses';
import { parseOrThrow } from './validation';

/** What one part of the request validates to: `undefined` for a part the route does not read. */
type Parsed<S extends RequestSchemas, K extends keyof RequestSchemas> = S[K] extends infer T
  ? T extends NonNullable<RequestSchemas[K]>
    ? output<T>
    : undefined
  : undefined;

export interface V1Input<S extends RequestSchemas> {
  body: Parsed<S, 'body'>;
  query: Parsed<S, 'query'>;
  path: Parsed<S, 'path'>;
  auth: AuthContext;
  requestId: string;
  event: ApiEvent;
}

/**
 * Builds a v1 Lambda handler for a route (shared/routes/typed-route.ts): request id, envelope
 * and error mapping, auth, the workspace's rate limit (server-key or client budget by the route's
 * credential), JSON body, zod validation of body / query / path with the route's schemas, then
 * the route's function, whose reply has the route's reply type. Handlers stay thin.
 */
export const v1Handler = <S extends RequestSchemas, D>(
  route: V1Route<S, D>,
  fn: (input: V1Input<S>) => Promise<ApiReply<D>>,
) => {
  const { request } = route;
  const core = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const input = {
      body: request.body ? parseOrThrow(request.body, context.jsonBody, 'body') : undefined,
      query: request.query ? parseOrThrow(request.query, event.queryStringParameters ?? {}, 'query') : undefined,
      path: request.path ? parseOrThrow(request.path, event.pathParameters ?? {}, 'path') : undefined,
      auth: context.auth as AuthContext,
      requestId: context.requestId,
      event,
    } as V1Input<S>;
    const run = () => fn(input);
    const idempotencyKey = header(event, 'idempotency-key');
    const reply =
      route.idempotent && idempotencyKey !== undefined
        ? await withIdempotency(
            { workspaceId: input.auth.workspaceId, scope: route.handler, key: idempotencyKey, body: context.jsonBody },
            run,
          )
        : await run();
    return successResult(reply, context.requestId);
  };

  const credential = route.credential as V1Credential;
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>(core)
    .use(observabilityMiddlewares())
    .use(requestIdMiddleware());
  // Client routes: CORS headers go onto the enveloped response, errors included.
  if (credential === 'publishable') chain.use(clientCorsMiddleware());
  chain.use(v1EnvelopeMiddleware());
  // Behind the console's distribution: trust the viewer's address (before auth counts failures by it).
  chain.use(consoleOriginMiddleware());
  const auth = authMiddlewareFor(credential, route.scope);
  if (auth) chain.use(auth);
  const limitKind = rateLimitKindOf(credential);
  if (limitKind) chain.use(rateLimitMiddleware(limitKind));
  if (request.body) chain.use(jsonBodyMiddleware());
  return chain;
};
