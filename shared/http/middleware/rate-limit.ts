import type { MiddlewareObj } from '@middy/core';
import { AppError } from '@shared/errors/app-error';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { WINDOW_SECONDS, type RateLimitKind } from '@shared/rate-limits/rate-limit-policy';
import { countRequest, type RateDecision } from '@shared/rate-limits/rate-limiter';
import { log } from '@shared/util/logger';
import { countRateLimiterFailedOpen } from '@shared/util/metrics';

const KIND_LABEL: Record<RateLimitKind, string> = {
  server: 'server-key',
  client: 'publishable-key client',
  legacy: 'legacy',
};

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10): the policy (quota `q`
 * per window `w` seconds) and the current state (`r` requests remaining, `t` seconds to reset),
 * named by the budget; plus `Retry-After` on a 429.
 */
export const rateLimitHeaders = (d: RateDecision): Record<string, string> => ({
  'RateLimit-Policy': `"${d.kind}";q=${d.limit};w=${WINDOW_SECONDS}`,
  RateLimit: `"${d.kind}";r=${d.remaining};t=${d.resetSeconds}`,
  ...(d.limited ? { 'Retry-After': String(d.resetSeconds) } : {}),
});

/**
 * Per-workspace rate limit, after auth (the workspace comes from the key): counts the request
 * in the table (shared by every Lambda instance, shared/rate-limits/rate-limiter.ts), puts the
 * rate-limit headers in `context.rateLimitHeaders` for the envelope to add to the answer, and
 * over the limit throws 429 `rate_limited` (each envelope answers it in its own shape). If the
 * counter cannot be written (DynamoDB throttling or an outage) the request goes through
 * unlimited (fails open: the limiter never takes the API down), the failure is logged and
 * counted (`RateLimiterFailedOpen`, which alarms: lib/service-alarms.ts). `RATE_LIMITS=off`
 * in a function's environment switches it off (an operator's kill switch; the bench's bare side).
 */
export const rateLimitMiddleware = (kind: RateLimitKind): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const workspaceId = request.context.auth?.workspaceId;
    if (!workspaceId || process.env.RATE_LIMITS === 'off') return;
    let decision: RateDecision;
    try {
      decision = await countRequest(workspaceId, kind);
    } catch (error) {
      countRateLimiterFailedOpen();
      log('warn', 'rate limiter unavailable; request not limited', {
        requestId: request.context.requestId,
        error: (error as Error).message,
      });
      return;
    }
    request.context.rateLimitHeaders = rateLimitHeaders(decision);
    if (decision.limited) {
      log('info', 'rate limited', { requestId: request.context.requestId, workspaceId, kind, limit: decision.limit });
      throw new AppError(
        'rate_limited',
        `Rate limit exceeded: ${decision.limit} requests per minute for this workspace's ${KIND_LABEL[kind]} routes; retry after ${decision.resetSeconds} seconds`,
        { limit: decision.limit, windowSeconds: WINDOW_SECONDS, retryAfterSeconds: decision.resetSeconds },
      );
    }
  },
});
