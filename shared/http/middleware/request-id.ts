import type { MiddlewareObj } from '@middy/core';
import { randomUUID } from 'node:crypto';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';
import { logger } from '@shared/util/logger';
import { tagMetricsRequest } from '@shared/util/metrics';

/** A caller's id is kept only if it is short and made of safe characters (no header injection). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const pickRequestId = (sent: string | undefined): string =>
  sent !== undefined && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();

/**
 * Sets `context.requestId` (caller's `x-request-id` or a new UUID) and echoes it as `X-Request-Id`;
 * every log line and the EMF line of the request carry it, with the route.
 */
export const requestIdMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  const echo = (request: { response?: ApiResult | null; context: ApiContext }) => {
    if (!request.response) return;
    request.response.headers = { ...request.response.headers, 'X-Request-Id': request.context.requestId };
  };
  return {
    before: (request) => {
      const requestId = pickRequestId(header(request.event, 'x-request-id'));
      request.context.requestId = requestId;
      logger.appendKeys({ requestId, route: request.event.routeKey });
      tagMetricsRequest(requestId, request.event.routeKey);
    },
    after: echo,
    onError: echo,
  };
};
