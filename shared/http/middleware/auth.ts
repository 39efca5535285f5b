import type { MiddlewareObj } from '@middy/core';
import type { CredentialKind } from '@shared/auth/credential';
import { authFailureLimit } from '@shared/config/auth-failure-limit';
import type { RouteScope } from '@shared/auth/scopes';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { publishableKeyAuthMiddleware } from './publishable-auth';
import { secretKeyAuthMiddleware } from './server-auth';

type V1Credential = Extract<CredentialKind, 'server' | 'app' | 'publishable' | 'none'>;

/**
 * The auth middleware for a v1 route's credential kind and, for server keys, scope (from the
 * route table). Built once per instance (cold start): a keyed route checks its failed-key limit
 * configuration there.
 */
export const authMiddlewareFor = (
  credential: V1Credential,
  scope?: RouteScope,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> | undefined => {
  if (credential !== 'none') authFailureLimit();
  switch (credential) {
    case 'server':
      if (!scope) throw new Error('A server-key route must name its scope in the route table');
      return secretKeyAuthMiddleware('server', scope);
    case 'app':
      return secretKeyAuthMiddleware('app');
    case 'publishable':
      return publishableKeyAuthMiddleware();
    case 'none':
      return undefined;
  }
};

export type { V1Credential };
