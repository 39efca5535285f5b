import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { acceptedOriginValues, carriesOriginSecret, refreshedOriginValues } from '@shared/http/origin-verify';
import { markThroughFrontDoor } from '@shared/http/trusted-viewer';

/** What a request that skipped the front door gets: a plain 403, nothing about the service. */
export const forbiddenOrigin = (): ApiResult => ({
  statusCode: 403,
  headers: {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'private, max-age=0',
    'X-Content-Type-Options': 'nosniff',
  },
  body: 'Forbidden',
});

/**
 * Edge functions behind CloudFront: a request carrying the origin-verify secret (current or
 * previous value; a mismatch re-reads the secret first, at most every 10 s) is marked as through the front door, so the viewer accessors trust its CDN
 * headers; one without it gets 403 (the function URL is public). Where no front door is
 * configured (no secret in the environment), nothing is refused and nothing is trusted.
 */
export const originVerifyMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const accepted = await acceptedOriginValues();
    if (accepted === null) return undefined;
    if (!carriesOriginSecret(request.event, accepted)) {
      // Perhaps a rotation this instance has not seen yet: re-read (rate-limited) before refusing.
      const fresh = await refreshedOriginValues();
      if (!fresh || !carriesOriginSecret(request.event, fresh)) return forbiddenOrigin();
    }
    markThroughFrontDoor(request.event);
    return undefined;
  },
});
