import type { MiddlewareObj } from '@middy/core';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { viewerIp } from '@shared/http/trusted-viewer';
import { authenticateKeyOrThrow, forbidden } from '@shared/auth/api-keys';
import type { KeyKind } from '@shared/auth/credential';
import { grants, scopesOf, type RouteScope } from '@shared/auth/scopes';
import { authenticateSessionOrThrow, consoleHeaderRequired, fromConsole, sessionTokenOf } from '@shared/auth/sessions';
import { AppError } from '@shared/errors/app-error';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';

/**
 * Secret-key auth (`api-key` header): 401 for a missing, unknown or revoked key, 403 for a key
 * of another kind or, on a route that needs a scope, a key without it (`details.reason =
 * "missing_scope"`): decided from the key alone, before the handler reads anything, so an id that
 * exists and one that does not get the same answer. The workspace (and app) come from the key
 * record, never from the request.
 *
 * Without an `api-key` header, the console's session cookie stands for the key it was made from
 * (shared/auth/sessions.ts), but only with the header `x-requested-with: console`: the request is
 * then answered exactly as that key would be (kind, scopes, workspace, actor).
 */
export const secretKeyAuthMiddleware = (
  accepted: KeyKind,
  scope?: RouteScope,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const presented = header(request.event, 'api-key');
    const session = presented === undefined ? sessionTokenOf(request.event) : undefined;
    if (session !== undefined && !fromConsole(request.event)) throw consoleHeaderRequired();
    const record =
      session !== undefined
        ? await authenticateSessionOrThrow(session, viewerIp(request.event))
        : await authenticateKeyOrThrow(presented, viewerIp(request.event));
    if (record.kind !== accepted) throw forbidden();
    if (scope !== undefined && !grants(scopesOf(record), scope)) throw missingScope(scope);
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

export const missingScope = (required: RouteScope) =>
  new AppError('forbidden', `This key does not have the ${required} scope this route needs`, {
    reason: 'missing_scope',
    required,
  });
