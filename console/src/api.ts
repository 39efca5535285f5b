import { LinkService, LinkServiceError } from '@linkservice/sdk';

/**
 * The v1 API on the page's own origin in the SDK's session mode: no key, the session cookie (a
 * same-origin request sends it) and the header `x-requested-with: console` that must come with it.
 */
export const api = new LinkService({ baseUrl: window.location.origin, session: true });

/** Whether an error says the session no longer authenticates (expired, signed out, key revoked). */
export const isSessionEnded = (error: unknown): boolean => error instanceof LinkServiceError && error.status === 401;
