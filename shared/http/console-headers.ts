/**
 * The security headers of the web console's pages and files, the same locally (`npm start`) and
 * deployed (the console distribution's response headers policy). The Content-Security-Policy
 * allows no inline script and no other origin: the console's code, styles and API calls are all
 * on its own origin, and no page may frame it.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** HSTS: sent by the deployed distribution (HTTPS); a plain-HTTP localhost has no use for it. */
export const CONSOLE_HSTS = 'max-age=63072000; includeSubDomains';

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
};
