/**
 * The console's session. Signing in exchanges a server key for a session (`POST /v1/sessions`):
 * the answer sets the HttpOnly cookie `__Host-session`, which the page never sees, so the key
 * does not stay in the browser. What the page keeps (localStorage, shared by its tabs like the
 * cookie) is only what the answer says about the session: its workspace, scopes and expiry, to
 * show the workspace and hide the controls a read-only key could not use.
 */
import { LinkServiceError } from '@linkservice/sdk';

/** What `POST /v1/sessions` answers about the new session. */
export interface SessionInfo {
  workspaceId: string;
  scopes: string[];
  expiresAt: string;
}

const STORAGE_KEY = 'linkservice.console.session';

/** The header v1 routes need beside the session cookie (a cross-site form cannot send it). */
export const CONSOLE_HEADERS = { 'x-requested-with': 'console' } as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const isSessionInfo = (value: unknown): value is SessionInfo =>
  isRecord(value) &&
  typeof value.workspaceId === 'string' &&
  typeof value.expiresAt === 'string' &&
  Array.isArray(value.scopes) &&
  value.scopes.every((s) => typeof s === 'string');

/** The stored session, unless there is none or it has expired. */
export const storedSession = (): SessionInfo | undefined => {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (!isSessionInfo(parsed) || Date.parse(parsed.expiresAt) <= Date.now()) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
};

export const storeSession = (session: SessionInfo | undefined): void => {
  if (session) localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else localStorage.removeItem(STORAGE_KEY);
};

/** Whether the session's key may change links (`links:write`, or `all`). */
export const canWriteLinks = (session: SessionInfo): boolean =>
  session.scopes.some((s) => s === 'all' || s === 'links:write');

/** The LinkServiceError of a failed answer in the API's envelope (or of a gateway's own body). */
const errorOf = async (response: Response): Promise<LinkServiceError> => {
  const body: unknown = await response.json().catch(() => undefined);
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const requestId =
    (isRecord(body) && typeof body.requestId === 'string' ? body.requestId : undefined) ??
    response.headers.get('x-request-id') ??
    undefined;
  return new LinkServiceError({
    status: response.status,
    code: error && typeof error.code === 'string' ? error.code : `http_${String(response.status)}`,
    message:
      error && typeof error.message === 'string' ? error.message : response.statusText || `HTTP ${response.status}`,
    details: error?.details,
    ...(requestId === undefined ? {} : { requestId }),
  });
};

/** Signs in with a server key: the session's cookie is set by the answer. */
export const signIn = async (apiKey: string): Promise<SessionInfo> => {
  const response = await fetch('/v1/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey }),
    credentials: 'same-origin',
  });
  if (!response.ok) throw await errorOf(response);
  const body: unknown = await response.json();
  const data = isRecord(body) ? body.data : undefined;
  if (!isSessionInfo(data)) throw new Error('The sign-in answer has no session');
  storeSession(data);
  return data;
};

/** Signs out: the session stops working and its cookie is cleared. */
export const signOut = async (): Promise<void> => {
  try {
    const response = await fetch('/v1/sessions/current', {
      method: 'DELETE',
      headers: CONSOLE_HEADERS,
      credentials: 'same-origin',
    });
    // 401: the session had already ended, which is what signing out wants.
    if (!response.ok && response.status !== 401) throw await errorOf(response);
  } finally {
    storeSession(undefined);
  }
};
