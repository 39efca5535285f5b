import { header, type ApiEvent, type ApiResult } from '@shared/http/api-types';
import { verifyPassword } from '@shared/util/password';
import { answerClick } from './answer-click';
import { isExpired } from './edge-outcome';
import { knownHostOf, LINK_KEY } from './handle-click';
import { passwordPage } from './html/password-page';
import { plainNotFound } from './html/status-page';
import { clearPasswordAttempts, reservePasswordAttempt } from './password-attempts';
import { findRecordOnHost } from './redirect-lookup';
import { bodyBytes } from '@shared/http/request-body';

const MAX_FORM_BYTES = 4096;

/** The `password` field of a form-urlencoded body (null when absent, too long or not a form). */
export const passwordFromForm = (event: ApiEvent): string | null => {
  const type = (header(event, 'content-type') ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded') || !event.body) return null;
  const raw = bodyBytes(event);
  if (raw.length > MAX_FORM_BYTES) return null;
  const password = new URLSearchParams(raw.toString('utf8')).get('password');
  return password && password.length <= 128 ? password : null;
};

/**
 * POST `/{key}`: the password form's answer. Every try is counted first (per client and link,
 * 429 beyond the limit); a wrong password shows the form again with 401; the right one opens the
 * link (303 to the destination, or the launch view) and records the click. Nothing that could
 * reveal the password is set: no cookie, no token in the URL. `pathKey`: the link key of the path
 * (default: the event's `key` path parameter).
 */
export const handlePasswordSubmit = async (
  event: ApiEvent,
  requestId: string,
  pathKey?: string,
): Promise<ApiResult> => {
  const known = await knownHostOf(event, pathKey);
  if (!known) return plainNotFound();
  const { request, host } = known;
  const key = request.key ?? '';
  const record = LINK_KEY.test(key) && !host.alternate ? await findRecordOnHost(host, key) : undefined;
  const passwordHash = record && !record.archived && !isExpired(record, new Date()) && record.passwordHash;
  // Not a password-protected live link: the same answer a GET gets.
  if (!passwordHash) return answerClick({ request, host, key, record, unlocked: false, requestId });

  const password = passwordFromForm(event);
  if (password === null) return passwordPage({ status: 400, key, message: 'Enter the password.' });
  const verdict = await reservePasswordAttempt(record.linkId, request.ip);
  if (!verdict.allowed) {
    return passwordPage({
      status: 429,
      key,
      message: `Too many attempts. Try again in ${Math.ceil(verdict.retryAfterSeconds / 60)} minute(s).`,
      retryAfterSeconds: verdict.retryAfterSeconds,
    });
  }
  if (!(await verifyPassword(password, passwordHash))) {
    return passwordPage({ status: 401, key, message: 'Wrong password. Try again.' });
  }
  const [response] = await Promise.all([
    answerClick({ request, host, key, record, unlocked: true, requestId }),
    clearPasswordAttempts(record.linkId, request.ip),
  ]);
  return response;
};
