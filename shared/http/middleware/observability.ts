import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { logger } from '@shared/util/logger';
import { metrics } from '@shared/util/metrics';

/**
 * First in every handler's chain: Powertools' Logger middleware (the Lambda context on every
 * line; keys appended during a request are dropped when it ends) and Metrics middleware (the
 * request's metrics flushed as one EMF line when it ends, errors included). On HTTP routes the
 * request-id middleware, next in the chain, adds `requestId` and `route` to both; the stream and
 * queue consumers (outbound events) use the same two middlewares.
 */
export const observabilityMiddlewares = <E = ApiEvent, R = ApiResult, C extends Context = ApiContext>(): MiddlewareObj<
  E,
  R,
  Error,
  C
>[] => [injectLambdaContext(logger, { resetKeys: true }), logMetrics(metrics)];
