import { AppError } from '@shared/errors/app-error';
import type { ApiEvent } from './api-types';

/** Largest body any route accepts (API Gateway allows 10 MB; nothing here needs more than this). */
export const MAX_BODY_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw body bytes as text; non-UTF-8 bytes and oversized bodies are refused. */
export const readBodyText = (event: ApiEvent, onBadEncoding: () => Error): string | undefined => {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
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
