/**
 * The security headers of the web console's pages and files, the same locally (`npm start`) and
 * deployed (the console distribution's response headers policy, lib/console-front-door.ts). The
 * Content-Security-Policy allows no inline script and no other origin: the console's code, styles
 * and API calls are all on its own origin, images may also be data: and blob: URLs (QR codes),
 * and no page may frame it.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The headers `npm start` sends with the console. Deployed, the distribution sends these and
 * Strict-Transport-Security, which a plain-HTTP localhost has no use for.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
};
