import type { ApiResult } from '@shared/http/api-types';
import { escapeHtml } from './escape';
import { htmlPage } from './page';

export interface PasswordPageInput {
  status: 200 | 400 | 401 | 429;
  key: string;
  message?: string;
  retryAfterSeconds?: number;
}

/**
 * The password form: posts back to the same path (form-urlencoded). Nothing about the link is
 * shown before the password is given. `form-action` also allows http(s) because the right
 * password's answer redirects to the destination, and browsers check redirects against it.
 */
export const passwordPage = (input: PasswordPageInput): ApiResult =>
  htmlPage({
    status: input.status,
    title: 'Password required',
    formAction: 'https: http:',
    headers: input.retryAfterSeconds !== undefined ? { 'Retry-After': String(input.retryAfterSeconds) } : {},
    body: `<h1>This link is password protected</h1>
${input.message ? `<p class="error" role="alert">${escapeHtml(input.message)}</p>` : ''}
<form method="post" action="/${escapeHtml(encodeURIComponent(input.key))}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="128" required autofocus>
<button class="button primary" type="submit">Continue</button>
</form>`,
  });
