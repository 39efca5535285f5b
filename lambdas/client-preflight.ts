import middy from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { answerClientPreflight } from '@shared/http/client-preflight';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { requestIdMiddleware } from '@shared/http/middleware/request-id';

export const handler = middy<ApiEvent, ApiResult, Error, ApiContext>((event: ApiEvent) => answerClientPreflight(event))
  .use(observabilityMiddlewares())
  .use(requestIdMiddleware());
