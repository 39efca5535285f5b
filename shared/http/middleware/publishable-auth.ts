import type { MiddlewareObj } from '@middy/core';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { viewerIp } from '@shared/http/trusted-viewer';
import { authenticateKeyOrThrow, forbidden } from '@shared/auth/api-keys';
import { restrictionFailure, type ClientHeaders } from '@shared/auth/publishable-restrictions';
import { AppError } from '@shared/errors/app-error';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';

/** The publishable key of a request: `x-publishable-key`, else `Authorization: Bearer <key>`. */
export const presentedPublishableKey = (event: ApiEvent): string | undefined => {
  const direct = header(event, 'x-publishable-key')?.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(event, 'authorization') ?? '')?.[1];
  // Two different keys in one request: neither is taken (401), rather than silently picking one.
  if (direct && bearer && direct !== bearer) return undefined;
  return direct || bearer;
};

export const clientHeadersOf = (event: ApiEvent): ClientHeaders => ({
  environment: header(event, 'x-service-environment'),
  platform: header(event, 'x-service-platform'),
  origin: header(event, 'origin'),
  androidPackage: header(event, 'x-android-package'),
  androidSha256Cert: header(event, 'x-android-sha256-cert'),
  iosBundleId: header(event, 'x-ios-bundle-id'),
});

/**
 * Client routes (`/v1/client/*`): 401 for a missing, unknown or revoked key; 403 `forbidden` for
 * a key of another kind (a secret key sent in `api-key` is looked at too, so that a server key
 * gets the clearer 403); 403 `client_restriction_failed` with `details.reason` when the key's
 * environment, platform, origin, package, certificate or bundle restriction fails.
 */
export const publishableKeyAuthMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const { event } = request;
    const record = await authenticateKeyOrThrow(
      presentedPublishableKey(event) ?? header(event, 'api-key'),
      viewerIp(event),
    );
    if (record.kind !== 'publishable' || !record.publishable) throw forbidden();
    const reason = restrictionFailure(record.publishable, clientHeadersOf(event));
    if (reason) {
      throw new AppError('client_restriction_failed', `The publishable key does not allow this ${reason}`, { reason });
    }
    request.context.auth = {
      kind: record.kind,
      workspaceId: record.workspaceId,
      appId: record.appId,
      publishable: record.publishable,
      keyId: publicKeyIdOf(record),
      keyName: record.name ?? null,
    };
  },
});
