import middy from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { requestIdMiddleware } from '@shared/http/middleware/request-id';
import { v1EnvelopeMiddleware } from '@shared/http/middleware/v1-envelope';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

let body: string | undefined;

/**
 * GET /v1/openapi.json: the document itself (not wrapped in the envelope, so tools read it
 * as is), built once per container; no key needed. Errors still answer in the v1 envelope.
 */
export const handler = middy<ApiEvent, ApiResult, Error, ApiContext>(() => {
  body ??= JSON.stringify(buildOpenApiDocument());
  return Promise.resolve({
    statusCode: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    body,
  });
})
  .use(observabilityMiddlewares())
  .use(requestIdMiddleware())
  .use({ onError: v1EnvelopeMiddleware().onError });
