import { AppError } from '@shared/errors/app-error';
import { getSecret } from '@shared/secrets/signing-secret';
import { canonicalJson } from '@shared/util/canonical-json';
import { hmacBase64Url, safeEqual, sha256Hex } from '@shared/util/hash';

/** Cursors older than this are refused (400 invalid_cursor). */
export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

const invalidCursor = () =>
  new AppError('invalid_cursor', 'The cursor is invalid, expired, or belongs to another query');

/**
 * Opaque cursor: base64url(JSON{p: position, q: hash of the query, t: issued at}) + "." + HMAC.
 * `query` is everything that shaped the result (route, workspace, filters, sort): a cursor is
 * valid only for the query that produced it.
 */
export const encodeCursor = async (position: unknown, query: Record<string, unknown>): Promise<string> => {
  const payload = Buffer.from(
    JSON.stringify({ p: position, q: sha256Hex(canonicalJson(query)).slice(0, 32), t: Date.now() }),
  ).toString('base64url');
  const mac = hmacBase64Url(await getSecret('cursor-signing'), payload);
  return `${payload}.${mac}`;
};

export const decodeCursor = async <T>(cursor: string, query: Record<string, unknown>): Promise<T> => {
  if (cursor.length > 4096) throw invalidCursor();
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) throw invalidCursor();
  if (!safeEqual(hmacBase64Url(await getSecret('cursor-signing'), payload), mac)) throw invalidCursor();
  let parsed: { p: T; q: string; t: number };
  try {
    // Signed by encodeCursor (the MAC was checked above), so it has the shape encodeCursor wrote.
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw invalidCursor();
  }
  if (parsed.q !== sha256Hex(canonicalJson(query)).slice(0, 32)) throw invalidCursor();
  if (typeof parsed.t !== 'number' || Date.now() - parsed.t > CURSOR_TTL_MS || parsed.t > Date.now() + 60_000)
    throw invalidCursor();
  return parsed.p;
};
