import middy from '@middy/core';
import type { $ZodType, output } from 'zod/v4/core';
import type { AuthContext } from '@shared/auth/credential';
import { withIdempotency } from '@shared/idempotency/idempotency';
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
import { parseOrThrow } from './validation';
import { ownRoute } from '@shared/routes/own-route';

export interface V1HandlerSpec<B extends $ZodType, Q extends $ZodType, P extends $ZodType> {
  /** The route's handler name in the route table; its credential kind comes from there. */
  route: string;
  body?: B;
  query?: Q;
  path?: P;
  /** Honour `Idempotency-Key` (POST creates); scoped per workspace and route. */
  idempotent?: boolean;
}

export interface V1Input<B, Q, P> {
  body: B;
  query: Q;
  path: P;
  auth: AuthContext;
  requestId: string;
  event: ApiEvent;
}

type Infer<S> = S extends $ZodType ? output<S> : undefined;

/**
 * Builds a v1 Lambda handler: request id, envelope and error mapping, auth, the workspace's
 * rate limit (server-key or client budget by the route's credential), JSON body, zod
 * validation of body / query / path, then the route's function. Handlers stay thin.
 */
export const v1Handler = <
  B extends $ZodType = $ZodType<undefined>,
  Q extends $ZodType = $ZodType<undefined>,
  P extends $ZodType = $ZodType<undefined>,
>(
  spec: V1HandlerSpec<B, Q, P>,
  fn: (input: V1Input<Infer<B>, Infer<Q>, Infer<P>>) => Promise<ApiReply>,
) => {
  const core = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const input = {
      body: spec.body ? parseOrThrow(spec.body, context.jsonBody, 'body') : undefined,
      query: spec.query ? parseOrThrow(spec.query, event.queryStringParameters ?? {}, 'query') : undefined,
      path: spec.path ? parseOrThrow(spec.path, event.pathParameters ?? {}, 'path') : undefined,
      auth: context.auth as AuthContext,
      requestId: context.requestId,
      event,
    } as V1Input<Infer<B>, Infer<Q>, Infer<P>>;
    const run = () => fn(input);
    const idempotencyKey = header(event, 'idempotency-key');
    const reply =
      spec.idempotent && idempotencyKey !== undefined
        ? await withIdempotency(
            { workspaceId: input.auth.workspaceId, scope: spec.route, key: idempotencyKey, body: context.jsonBody },
            run,
          )
        : await run();
    // The reply travels as the chain's result: the envelope middleware turns it into the HTTP response.
    return reply;
  };

  const own = ownRoute(spec.route);
  const credential = own.credential as V1Credential;
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>(core)
    .use(observabilityMiddlewares())
    .use(requestIdMiddleware());
  // Client routes: CORS headers go onto the enveloped response, errors included.
  if (credential === 'publishable') chain.use(clientCorsMiddleware());
  chain.use(v1EnvelopeMiddleware());
  // Behind the console's distribution: trust the viewer's address (before auth counts failures by it).
  chain.use(consoleOriginMiddleware());
  const auth = authMiddlewareFor(credential, own.scope);
  if (auth) chain.use(auth);
  const limitKind = rateLimitKindOf(credential);
  if (limitKind) chain.use(rateLimitMiddleware(limitKind));
  if (spec.body) chain.use(jsonBodyMiddleware());
  return chain;
};
