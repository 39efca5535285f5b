import type { MiddlewareObj } from '@middy/core';
import type { CredentialKind } from '@shared/auth/credential';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { publishableKeyAuthMiddleware } from './publishable-auth';
import { secretKeyAuthMiddleware } from './server-auth';

type V1Credential = Extract<CredentialKind, 'server' | 'app' | 'publishable' | 'none'>;

/** The auth middleware for a v1 route's credential kind (from the route table). */
export const authMiddlewareFor = (
  credential: V1Credential,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> | undefined => {
  switch (credential) {
    case 'server':
      return secretKeyAuthMiddleware('server');
    case 'app':
      return secretKeyAuthMiddleware('app');
    case 'publishable':
      return publishableKeyAuthMiddleware();
    case 'none':
      return undefined;
  }
};

export type { V1Credential };
