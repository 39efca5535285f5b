import type { MiddlewareObj } from '@middy/core';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { viewerIp } from '@shared/http/trusted-viewer';
import { authenticateKeyOrThrow } from '@shared/auth/api-keys';
import { authFailureLimit } from '@shared/config/auth-failure-limit';
import type { ApiKeyRecord, CredentialKind } from '@shared/auth/credential';
import { isAppError } from '@shared/errors/app-error';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';
import { legacyErrors } from '@shared/legacy/legacy-error';
import type { HttpMethod } from '@shared/routes/route-types';

export type LegacyCredential = Extract<CredentialKind, 'legacy-mobile' | 'legacy-app'>;

/**
 * Legacy `api-key` auth in the legacy error shapes. No key: 400 (`msg` on POST, `error` on GET, as
 * the deeplink rows say). An unknown, revoked or other-kind key: 404 with the route's "not
 * found, check the key" message (workspace for the mobile key, deep-link app for the app key).
 */
export const legacyAuthMiddleware = (
  credential: LegacyCredential,
  method: HttpMethod,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  authFailureLimit(); // built at cold start: a bad failed-key limit fails the init, not a request
  const wanted = credential === 'legacy-app' ? 'app' : 'mobile';
  const unknownKey = credential === 'legacy-app' ? legacyErrors.appNotFound : legacyErrors.workspaceNotFound;
  return {
    before: async (request) => {
      const presented = header(request.event, 'api-key');
      if (presented === undefined || presented === '') {
        throw method === 'GET' ? legacyErrors.headerKeyRequired() : legacyErrors.apiKeyRequired();
      }
      let record: ApiKeyRecord;
      try {
        record = await authenticateKeyOrThrow(presented, viewerIp(request.event));
      } catch (error) {
        if (isAppError(error) && error.code === 'unauthorized') throw unknownKey();
        throw error;
      }
      if (record.kind !== wanted || (wanted === 'app' && !record.appId)) throw unknownKey();
      request.context.auth = {
        kind: record.kind,
        workspaceId: record.workspaceId,
        appId: record.appId,
        publishable: null,
        keyId: publicKeyIdOf(record),
        keyName: record.name ?? null,
      };
    },
  };
};
