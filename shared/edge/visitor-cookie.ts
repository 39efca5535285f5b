/**
 * The edge's first-party visitor cookie on the link domain: it holds the key an A/B-test
 * variant is hashed from, so a visitor's later clicks land where the first did. Set on a click
 * that a variant decided when the visitor had none (its value is then that click's visitor id),
 * for 30 days. The front door's origin request policy forwards this cookie alone.
 */
export const VISITOR_COOKIE = 'lv_vid';
export const VISITOR_COOKIE_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
const VALUE = /^[A-Za-z0-9_-]{16,64}$/;

/** The cookie's value among a request's cookies (`name=value` strings), when well-formed. */
export const visitorCookieOf = (cookies: readonly string[] | undefined): string | null => {
  for (const cookie of cookies ?? []) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === VISITOR_COOKIE) {
      const value = cookie.slice(at + 1).trim();
      if (VALUE.test(value)) return value;
    }
  }
  return null;
};

/** The `Set-Cookie` value giving the visitor this key (Secure on https). */
export const visitorCookieHeader = (key: string, secure: boolean): string =>
  `${VISITOR_COOKIE}=${key}; Max-Age=${String(VISITOR_COOKIE_MAX_AGE_SECONDS)}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
