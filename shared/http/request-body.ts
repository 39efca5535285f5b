import { AppError } from '@shared/errors/app-error';
import type { ApiEvent } from './api-types';

/** Largest body any route accepts (API Gateway allows 10 MB; nothing here needs more than this). */
export const MAX_BODY_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw body bytes of an API Gateway (payload 2.0) event, base64-encoded or not; empty when none. */
export const bodyBytes = (event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): Buffer =>
  event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);

/** The raw body bytes as text; non-UTF-8 bytes and oversized bodies are refused. */
export const readBodyText = (event: ApiEvent, onBadEncoding: () => Error): string | undefined => {
  if (!event.body) return undefined;
  const bytes = bodyBytes(event);
  if (bytes.length > MAX_BODY_BYTES) {
    throw new AppError('invalid_request', `The body is larger than ${MAX_BODY_BYTES} bytes`, [
      { path: '', message: `at most ${MAX_BODY_BYTES} bytes` },
    ]);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw onBadEncoding();
  }
};

export const mediaType = (contentType: string | undefined): string | undefined =>
  contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
