import { clearedSessionCookie, deleteSession, sessionTokenOf } from '@shared/auth/sessions';
import { v1Handler } from '@shared/http/v1-handler';
import { sessionsDeleteRoute } from '@shared/routes/session-routes';

/**
 * Console sign-out: deletes the session the cookie names and clears the cookie; 204 whether or
 * not there was one (signing out twice is not an error). A cross-site page cannot send it: a
 * DELETE needs a CORS preflight the service API never grants, and the cookie is SameSite=Strict.
 */
export const handler = v1Handler(sessionsDeleteRoute, async ({ event }) => {
  const token = sessionTokenOf(event);
  if (token !== undefined) await deleteSession(token);
  return { status: 204, cookies: [clearedSessionCookie()] };
});
