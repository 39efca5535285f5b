import type { MiddlewareObj } from '@middy/core';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';
import { ORIGIN_VERIFY_HEADER } from '@shared/http/origin-verify-header';
import { markThroughFrontDoor } from '@shared/http/trusted-viewer';
import { log } from '@shared/util/logger';

/**
 * The service API behind the console's CloudFront distribution (lib/console-front-door.ts), which
 * adds the origin-verify secret to every `/v1/*` request it forwards, with the viewer's
 * `CloudFront-Viewer-Address`. A request carrying the secret (current or previous value; a
 * mismatch re-reads it, at most every 10 s) is marked as through the front door, so the viewer
 * accessors trust its CDN headers: the failed-auth limit and the audit log then see the viewer's
 * address, not CloudFront's. Unlike the edge, nothing is refused: the service API is also called
 * on its own URL, where nothing from a CDN is trusted. The secret is read only for a request that
 * carries the header (and its module loaded then), and a failure to read it trusts nothing (logged), never fails the request.
 */
export const consoleOriginMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const { event } = request;
    if (header(event, ORIGIN_VERIFY_HEADER) === undefined) return;
    try {
      // Loaded on the first such request only: a v1 function called directly never starts the Secrets Manager client.
      const { acceptedOriginValues, carriesOriginSecret, refreshedOriginValues } =
        await import('@shared/http/origin-verify');
      const accepted = await acceptedOriginValues();
      if (accepted === null) return;
      if (carriesOriginSecret(event, accepted)) {
        markThroughFrontDoor(event);
        return;
      }
      const fresh = await refreshedOriginValues();
      if (fresh && carriesOriginSecret(event, fresh)) markThroughFrontDoor(event);
    } catch (error) {
      log('warn', 'origin-verify secret unavailable: CDN headers not trusted', {
        error: error instanceof Error ? error.name : String(error),
      });
    }
  },
});
