import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a click token carries: the click, its link and workspace, and when the edge issued it. */
export interface ClickTokenClaims {
  readonly clickId: string;
  readonly linkId: string;
  readonly workspaceId: string;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
}

/**
 * How long a click token is accepted: the web script's cookie lifetime (90 days). A conversion
 * later than that is not attributed to the click.
 */
export const CLICK_TOKEN_MAX_AGE_S = 90 * 24 * 3600;
/** Clock skew allowed on `issuedAt` (the edge and the events route run on different machines). */
const FUTURE_SKEW_S = 300;
const VERSION = 'v1';
const SEPARATOR = '|';
/** Ids are uuids and `<prefix>_<base62>`: no separator, no control characters. */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

const mac = (payload: string, secret: string): Buffer =>
  createHmac('sha256', secret).update(`${VERSION}.${payload}`).digest().subarray(0, 16);

/**
 * `v1.<payload>.<signature>`: the payload is base64url of `clickId|linkId|workspaceId|issuedAt`,
 * the signature the first 128 bits of HMAC-SHA256 (the workspace's secret) over `v1.<payload>`,
 * base64url. About 140 characters: fits a query parameter and a cookie.
 */
export const signClickToken = (claims: ClickTokenClaims, secret: string): string => {
  const payload = Buffer.from(
    [claims.clickId, claims.linkId, claims.workspaceId, String(claims.issuedAt)].join(SEPARATOR),
  ).toString('base64url');
  return `${VERSION}.${payload}.${mac(payload, secret).toString('base64url')}`;
};

/** Why a token is refused: each has its own message (`tokenRefusalMessage`). */
export type ClickTokenRefusal = 'malformed' | 'other_workspace' | 'unknown_workspace' | 'bad_signature' | 'expired';

export const tokenRefusalMessage: Record<ClickTokenRefusal, string> = {
  malformed: 'The click token is malformed',
  other_workspace: 'The click token belongs to another workspace',
  unknown_workspace: 'The click token was not issued by this workspace (it has never issued one)',
  bad_signature: 'The click token signature does not verify',
  expired: `The click token has expired (tokens are accepted for ${String(CLICK_TOKEN_MAX_AGE_S / 86_400)} days after the click)`,
};

export type ClickTokenCheck =
  { readonly ok: true; readonly claims: ClickTokenClaims } | { readonly ok: false; readonly reason: ClickTokenRefusal };

/** The claims a token states, unverified (null: not a token). */
export const readClickToken = (token: string): ClickTokenClaims | null => {
  const [version, payload, signature, ...rest] = token.split('.');
  if (version !== VERSION || !payload || !signature || rest.length > 0) return null;
  const fields = Buffer.from(payload, 'base64url').toString('utf8').split(SEPARATOR);
  const [clickId, linkId, workspaceId, issued] = fields;
  if (fields.length !== 4 || !clickId || !linkId || !workspaceId || !issued) return null;
  if (![clickId, linkId, workspaceId].every((id) => ID.test(id)) || !/^\d{1,12}$/.test(issued)) return null;
  return { clickId, linkId, workspaceId, issuedAt: Number(issued) };
};

/**
 * Verifies a token for a workspace: its form, that it names this workspace, its signature with
 * the workspace's secret (undefined: the workspace has none, so it never issued a token), and
 * its age at `now`.
 */
export const verifyClickToken = (
  token: string,
  workspaceId: string,
  secret: string | undefined,
  now: Date,
): ClickTokenCheck => {
  const claims = readClickToken(token);
  if (!claims) return { ok: false, reason: 'malformed' };
  if (claims.workspaceId !== workspaceId) return { ok: false, reason: 'other_workspace' };
  if (secret === undefined) return { ok: false, reason: 'unknown_workspace' };
  const [, payload = '', signature = ''] = token.split('.');
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  const age = Math.floor(now.getTime() / 1000) - claims.issuedAt;
  if (age > CLICK_TOKEN_MAX_AGE_S || age < -FUTURE_SKEW_S) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
};
