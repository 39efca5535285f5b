import busboy from 'busboy';
import { header, type ApiEvent } from './api-types';
import { mediaType, MAX_BODY_BYTES } from './request-body';

/** A body that is not an acceptable multipart/form-data form; `status` is 400 or 413. */
export class MultipartFormError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 = 400,
  ) {
    super(message);
    this.name = 'MultipartFormError';
  }
}

export interface MultipartLimits {
  /** Whole body, after base64 decoding. */
  maxBodyBytes: number;
  /** Number of parts (all fields; files are refused anyway). */
  maxParts: number;
  /** Bytes of one field value. */
  maxFieldBytes: number;
}

/** Generous for the legacy forms (the largest field, `objects`, is at most 16 KiB serialized). */
export const defaultMultipartLimits: MultipartLimits = {
  maxBodyBytes: MAX_BODY_BYTES,
  maxParts: 32,
  maxFieldBytes: 64 * 1024,
};

/** The raw body bytes of an API Gateway (payload 2.0) event, base64-encoded or not. */
const bodyBytes = (event: ApiEvent): Buffer => {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
};

/**
 * Parses a `multipart/form-data` body into its text fields (UTF-8) with busboy. Refused, as
 * `MultipartFormError`: another content type, a missing boundary, a malformed or truncated body,
 * a file part (uploads are not accepted), a field sent twice, too many parts, a field over
 * `maxFieldBytes` (400), a body over `maxBodyBytes` (413).
 */
export const parseMultipartForm = (
  event: ApiEvent,
  limits: MultipartLimits = defaultMultipartLimits,
): Promise<Map<string, string>> => {
  const contentType = header(event, 'content-type');
  if (mediaType(contentType) !== 'multipart/form-data') {
    return Promise.reject(new MultipartFormError('Content-Type must be multipart/form-data'));
  }
  const bytes = bodyBytes(event);
  if (bytes.length > limits.maxBodyBytes) {
    return Promise.reject(new MultipartFormError(`The body is larger than ${limits.maxBodyBytes} bytes`, 413));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // busboy signals a limit when it is reached, not exceeded: one unit of headroom, then our own checks.
      limits: { parts: limits.maxParts + 1, fields: limits.maxParts, fieldSize: limits.maxFieldBytes + 1 },
      defCharset: 'utf8',
      defParamCharset: 'utf8',
    });
  } catch {
    return Promise.reject(new MultipartFormError('The multipart/form-data Content-Type has no boundary'));
  }

  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let failure: MultipartFormError | undefined;
    const fail = (message: string) => {
      failure ??= new MultipartFormError(message);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || Buffer.byteLength(value) > limits.maxFieldBytes) return fail(`The form field ${name} is longer than ${limits.maxFieldBytes} bytes`);
      if (fields.has(name)) return fail(`The form field ${name} is sent more than once`);
      fields.set(name, value);
    });
    parser.on('file', (name, stream) => {
      stream.resume();
      fail(`File uploads are not accepted (part ${name})`);
    });
    parser.on('partsLimit', () => fail(`The form has more than ${limits.maxParts} parts`));
    parser.on('fieldsLimit', () => fail(`The form has more than ${limits.maxParts} fields`));
    parser.on('error', () => reject(failure ?? new MultipartFormError('The multipart/form-data body is malformed')));
    parser.on('close', () => (failure ? reject(failure) : resolve(fields)));
    parser.end(bytes);
  });
};
