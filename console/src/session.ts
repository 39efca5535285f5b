/**
 * The console's session. Signing in exchanges a server key for a session (`POST /v1/sessions`):
 * the answer sets the HttpOnly cookie `__Host-session`, which the page never sees, so the key
 * does not stay in the browser. What the page keeps (localStorage, shared by its tabs like the
 * cookie) is only what the answer says about the session: its workspace, scopes and expiry, to
 * show the workspace and hide the controls a read-only key could not use.
 */
import { api, isSessionEnded } from './api';

/** What `POST /v1/sessions` answers about the new session. */
export interface SessionInfo {
  workspaceId: string;
  scopes: string[];
  expiresAt: string;
}

const STORAGE_KEY = 'linkservice.console.session';

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

/** Signs in with a server key: the answer sets the session's cookie (the SDK's `sessions.create`). */
export const signIn = async (apiKey: string): Promise<SessionInfo> => {
  const session = await api.sessions.create({ apiKey });
  const info: SessionInfo = {
    workspaceId: session.workspaceId,
    scopes: [...session.scopes],
    expiresAt: session.expiresAt,
  };
  storeSession(info);
  return info;
};

/** Signs out: the session stops working and its cookie is cleared. */
export const signOut = async (): Promise<void> => {
  try {
    await api.sessions.delete();
  } catch (error) {
    // 401: the session had already ended, which is what signing out wants.
    if (!isSessionEnded(error)) throw error;
  } finally {
    storeSession(undefined);
  }
};
