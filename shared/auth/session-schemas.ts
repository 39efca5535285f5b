import { routeScopes, scopeShorthands } from './scopes';
import * as z from '@shared/schemas/zod-mini';

/** POST /v1/sessions: the server key to sign in with (it is never stored in the browser). */
export const createSessionBodySchema = z.strictObject({
  apiKey: z.string().check(z.minLength(1, 'is required'), z.maxLength(512, 'must be at most 512 characters')),
});

/** What signing in answers (the session itself travels in the `__Host-session` cookie). */
export const sessionResourceSchema = z.object({
  workspaceId: z.string(),
  scopes: z.array(z.enum([...routeScopes, ...scopeShorthands])),
  expiresAt: z.string(),
});
