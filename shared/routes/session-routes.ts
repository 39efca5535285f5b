import type { output } from 'zod/v4/core';
import { createSessionBodySchema, type sessionResourceSchema } from '@shared/auth/session-schemas';
import type { NoRequest, V1Route } from './typed-route';

/**
 * Console sign-in. Neither route takes an `api-key` header: signing in authenticates the key in
 * the body itself (and counts a wrong one against the failed-auth limit), signing out ends the
 * session its cookie names. Neither is limited by a workspace budget (there is no workspace before
 * the key is checked); deployed, a WAF rate-based rule on the console distribution limits sign-ins.
 */
export const sessionsCreateRoute: V1Route<
  { body: typeof createSessionBodySchema },
  output<typeof sessionResourceSchema>
> = {
  request: { body: createSessionBodySchema },
  handler: 'sessions-create',
  method: 'POST',
  path: '/v1/sessions',
  credential: 'none',
  authenticatesKey: true,
  api: 'service',
  // The session (SESSION#), the key it signs in with (APIKEY#, read; its lastUsedOn day, below)
  // and the failed-auth counter of a wrong key (RATE#).
  grants: {
    table: 'readWrite',
    writes: ['SESSION#', 'RATE#'],
    reads: ['APIKEY#'],
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    attributeUpdates: { prefixes: ['APIKEY#'], attributes: ['lastUsedOn'] },
  },
  summary: 'Sign in to the console: exchange a server key for a session cookie (no api-key header)',
};

export const sessionsDeleteRoute: V1Route<NoRequest, never> = {
  request: {},
  handler: 'sessions-delete',
  method: 'DELETE',
  path: '/v1/sessions/current',
  credential: 'none',
  api: 'service',
  grants: { table: 'readWrite', writes: ['SESSION#'], actions: ['dynamodb:DeleteItem'] },
  summary: 'Sign out of the console: end the session of the cookie and clear it',
};

export const sessionRoutes = [sessionsCreateRoute, sessionsDeleteRoute];
