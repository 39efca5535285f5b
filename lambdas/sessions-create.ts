import { authenticateKeyOrThrow, forbidden } from '@shared/auth/api-keys';
import { scopesOf } from '@shared/auth/scopes';
import { createSession, sessionCookie } from '@shared/auth/sessions';
import { authFailureLimit } from '@shared/config/auth-failure-limit';
import { v1Handler } from '@shared/http/v1-handler';
import { viewerIp } from '@shared/http/trusted-viewer';
import { sessionsCreateRoute } from '@shared/routes/session-routes';

// A bad failed-auth limit fails the cold start, as on the keyed routes.
authFailureLimit();

/**
 * Console sign-in: a server key in the body (never an `api-key` header) for a session cookie.
 * A wrong key is 401 with no cookie and counts against the caller's address (failed-auth limit);
 * a key of another kind is 403.
 */
export const handler = v1Handler(sessionsCreateRoute, async ({ body, event }) => {
  const key = await authenticateKeyOrThrow(body.apiKey, viewerIp(event));
  if (key.kind !== 'server') throw forbidden();
  const { token, session } = await createSession(key);
  return {
    status: 201,
    data: { workspaceId: session.workspaceId, scopes: [...scopesOf(key)], expiresAt: session.expiresAt },
    cookies: [sessionCookie(token)],
  };
});
