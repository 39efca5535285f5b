import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { AppError } from '@shared/errors/app-error';
import { header, type ApiEvent } from '@shared/http/api-types';
import { sha256Hex } from '@shared/util/hash';
import { logger } from '@shared/util/logger';
import { apiKeyRepository } from './api-key-repository';
import { isExpired, keyNow } from './api-keys';
import type { ApiKeyRecord } from './credential';
import { countFailedAuth } from './failed-auth-limit';
import { publicKeyIdOf } from './key-id';
import { recordLastUse } from './last-used';

/**
 * Console sign-in sessions. A person signs in with a server key once (`POST /v1/sessions`); the
 * browser then holds only a random session token, in an HttpOnly cookie, and the key never stays
 * in the page. The table keeps the SHA-256 of the token (never the token) with the key's hash, so
 * every request that presents the cookie authenticates the key afresh: a session ends when its
 * key stops authenticating (revoked, expired, past a rotation's overlap), when it is 12 hours
 * old, or when it is signed out.
 */

/** The cookie's name: `__Host-` makes the browser require Secure, Path=/ and no Domain. */
export const SESSION_COOKIE = '__Host-session';
/** How long a session lasts, in seconds (the cookie's Max-Age and the item's expiry). */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/**
 * The header a request must carry for its session cookie to count (`x-requested-with: console`).
 * A cross-site form cannot set a header, and a cross-site fetch that sets one needs a CORS
 * preflight the service API never grants, so a forged request from another site is not signed in.
 */
export const CONSOLE_HEADER = 'x-requested-with';
export const CONSOLE_HEADER_VALUE = 'console';

export interface SessionRecord {
  /** The hash of the key the session was made from (the key is looked up on every request). */
  keyHash: string;
  workspaceId: string;
  createdAt: string;
  expiresAt: string;
}

/** A new session token: 256 random bits, base64url (cookie-safe). Only its hash is stored. */
const newToken = (): string => randomBytes(32).toString('base64url');
const hashToken = (token: string): string => sha256Hex(`session:${token}`);

/** The `Set-Cookie` value that gives the browser a session. */
export const sessionCookie = (token: string): string =>
  `${SESSION_COOKIE}=${token}; Max-Age=${String(SESSION_TTL_SECONDS)}; Path=/; Secure; HttpOnly; SameSite=Strict`;

/** The `Set-Cookie` value that makes the browser drop its session cookie. */
export const clearedSessionCookie = (): string =>
  `${SESSION_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict`;

/**
 * The session token a request presents, if any: from the event's `cookies` (API Gateway's payload
 * 2.0 moves the Cookie header there) or, failing that, a `Cookie` header. A token is base64url.
 */
export const sessionTokenOf = (event: ApiEvent): string | undefined => {
  const pairs = event.cookies ?? (header(event, 'cookie') ?? '').split(';');
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    if (value !== '') return value;
  }
  return undefined;
};

/** Whether the request says it comes from the console (`x-requested-with: console`). */
export const fromConsole = (event: ApiEvent): boolean =>
  header(event, CONSOLE_HEADER)?.trim().toLowerCase() === CONSOLE_HEADER_VALUE;

export const sessionEnded = () =>
  new AppError('unauthorized', 'The session has ended: sign in again', { reason: 'session_ended' });

export const consoleHeaderRequired = () =>
  new AppError(
    'unauthorized',
    'A session cookie is accepted only with the header x-requested-with: console; other clients send an api-key header',
    { reason: 'console_header_required' },
  );

/** Stores a new session for an authenticated server key and returns its token (for the cookie) and record. */
export const createSession = async (key: ApiKeyRecord): Promise<{ token: string; session: SessionRecord }> => {
  const now = keyNow();
  const token = newToken();
  const expires = now + SESSION_TTL_SECONDS * 1000;
  const session: SessionRecord = {
    keyHash: key.keyHash,
    workspaceId: key.workspaceId,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(expires).toISOString(),
  };
  await getDocumentClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.session(hashToken(token)), type: 'SESSION', ...session, ttl: Math.ceil(expires / 1000) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { token, session };
};

/** Deletes the session of this token (signing out); nothing to do when there is none. */
export const deleteSession = async (token: string): Promise<void> => {
  await getDocumentClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.session(hashToken(token)) }));
};

/**
 * The key a session cookie stands for, authenticated afresh. An unknown token is a failed
 * credential like an unknown key (counted against `address` by the failed-auth limit); a session
 * past its expiry (DynamoDB deletes expired items only eventually) or whose key no longer
 * authenticates answers the same 401, `details.reason = "session_ended"`.
 */
export const authenticateSessionOrThrow = async (token: string, address: string | null): Promise<ApiKeyRecord> => {
  const now = keyNow();
  const out =
    token.length > 128
      ? undefined
      : await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.session(hashToken(token)) }));
  const session = out?.Item as (SessionRecord & Record<string, unknown>) | undefined;
  if (!session) {
    await countFailedAuth(address, now);
    throw sessionEnded();
  }
  if (Date.parse(session.expiresAt) <= now) throw sessionEnded();
  const record = await apiKeyRepository.findByHash(session.keyHash);
  if (!record || record.revoked || isExpired(record, now) || record.workspaceId !== session.workspaceId)
    throw sessionEnded();
  logger.appendKeys({ keyId: publicKeyIdOf(record) });
  await recordLastUse(record, now);
  return record;
};
