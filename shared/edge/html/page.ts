import { randomBytes } from 'node:crypto';
import type { ApiResult } from '@shared/http/api-types';
import { escapeHtml } from './escape';

export interface PageOptions {
  status: number;
  title: string;
  /** Trusted markup built by the page modules (every user value already escaped). */
  body: string;
  /** Extra trusted `<head>` markup (meta tags). */
  head?: string;
  /** Inline script text (trusted, constant); allowed by the page's nonce. */
  script?: string;
  /** CSP form-action sources beyond 'self' (the password form's answer redirects to the destination). */
  formAction?: string;
  /** Allow same-origin fetch/beacon (launch view events). */
  connectSelf?: boolean;
  headers?: Record<string, string>;
}

const STYLE = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:2rem 1rem;color:#1d1d1f;background:#f5f5f7}
main{max-width:26rem;margin:0 auto;background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.25rem;margin:0 0 1rem}p{margin:.5rem 0}.error{color:#b00020}.hint{font-size:.875rem;color:#6e6e73}
.button{display:block;box-sizing:border-box;width:100%;text-align:center;padding:.75rem;border-radius:8px;border:0;font:inherit;text-decoration:none;margin-top:.75rem;cursor:pointer}
.primary{background:#0a66ff;color:#fff}.secondary{background:#e8e8ed;color:#1d1d1f}
input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #c7c7cc;border-radius:8px}`;

/** Security headers of every edge page: strict CSP (nonce for the one inline style and script), no framing, no sniffing. */
export const contentSecurityPolicy = (nonce: string, options: Pick<PageOptions, 'formAction' | 'connectSelf'>) =>
  [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    'img-src https: data:',
    `connect-src ${options.connectSelf ? "'self'" : "'none'"}`,
    `form-action 'self'${options.formAction ? ` ${options.formAction}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

export const pageHeaders = (extra: Record<string, string> = {}) => ({
  'Cache-Control': 'private, max-age=0, no-store',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Content-Type-Options': 'nosniff',
  ...extra,
});

/** A small self-contained HTML page: no third-party scripts, fonts or styles. */
export const htmlPage = (options: PageOptions): ApiResult => {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)}</title>${options.head ?? ''}
<style nonce="${nonce}">${STYLE}</style></head>
<body><main>${options.body}</main>${options.script ? `<script nonce="${nonce}">${options.script}</script>` : ''}</body></html>`;
  return {
    statusCode: options.status,
    headers: pageHeaders({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': contentSecurityPolicy(nonce, options),
      'X-Frame-Options': 'DENY',
      ...options.headers,
    }),
    body: html,
  };
};
