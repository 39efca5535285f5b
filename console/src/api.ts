import { LinkService, LinkServiceError } from '@linkservice/sdk';
import { CONSOLE_HEADERS } from './session';

/**
 * The v1 API on the page's own origin, authenticated by the session cookie (a same-origin fetch
 * sends it) together with the console header.
 */
export const api = new LinkService({ baseUrl: window.location.origin, headers: CONSOLE_HEADERS });

/** Whether an error says the session no longer authenticates (expired, signed out, key revoked). */
export const isSessionEnded = (error: unknown): boolean => error instanceof LinkServiceError && error.status === 401;
