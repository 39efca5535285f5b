import type { MiddlewareObj } from '@middy/core';
import { authenticateKeyOrThrow, forbidden } from '@shared/auth/api-keys';
import type { KeyKind } from '@shared/auth/credential';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';

/**
 * Secret-key auth (`api-key` header): 401 for a missing, unknown or revoked key, 403 for a key
 * of another kind. The workspace (and app) come from the key record, never from the request.
 */
export const secretKeyAuthMiddleware = (accepted: KeyKind): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const record = await authenticateKeyOrThrow(header(request.event, 'api-key'));
    if (record.kind !== accepted) throw forbidden();
    request.context.auth = {
      kind: record.kind,
      workspaceId: record.workspaceId,
      appId: record.appId,
      publishable: record.publishable,
    };
  },
});
