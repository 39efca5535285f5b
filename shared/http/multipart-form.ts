import { header, type ApiEvent } from './api-types';
import { bodyBytes, mediaType, MAX_BODY_BYTES } from './request-body';

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

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * undici decodes field values as UTF-8 with replacement, so `https://example.com/\xff` would
 * arrive as `https://example.com/\ufffd` and be stored that way. Files are refused, so every
 * byte of an acceptable form (boundaries, part headers, values) is text: a body that is not
 * valid UTF-8 is refused, naming the field whose value carries the replacement character.
 */
const refuseInvalidUtf8 = (bytes: Buffer, fields: Map<string, string>) => {
  try {
    utf8.decode(bytes);
  } catch {
    const field = [...fields].find(([name, value]) => value.includes('\ufffd') || name.includes('\ufffd'))?.[0];
    throw new MultipartFormError(
      field ? `The form field ${field} is not valid UTF-8` : 'The form body is not valid UTF-8',
    );
  }
};

/**
 * Parses a `multipart/form-data` body into its text fields (UTF-8) with the runtime's own
 * multipart parser (Node's fetch implementation, undici: `Response.formData()`), which costs the
 * Lambda bundle nothing and its cold start nothing (docs/benchmarks.md). Refused, as
 * `MultipartFormError`: another content type, a missing boundary, a malformed or truncated body,
 * a file part (uploads are not accepted), a field sent twice, too many parts, a field over
 * `maxFieldBytes` (400), bytes that are not valid UTF-8 (400), a body over `maxBodyBytes` (413; checked before parsing).
 */
export const parseMultipartForm = async (
  event: ApiEvent,
  limits: MultipartLimits = defaultMultipartLimits,
): Promise<Map<string, string>> => {
  const contentType = header(event, 'content-type');
  if (contentType === undefined || mediaType(contentType) !== 'multipart/form-data')
    throw new MultipartFormError('Content-Type must be multipart/form-data');
  if (!/;\s*boundary=("[^"]+"|[^;\s]+)/i.test(contentType)) {
    throw new MultipartFormError('The multipart/form-data Content-Type has no boundary');
  }
  const bytes = bodyBytes(event);
  if (bytes.length > limits.maxBodyBytes)
    throw new MultipartFormError(`The body is larger than ${limits.maxBodyBytes} bytes`, 413);
  let form: FormData;
  try {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- undici deprecates formData() for unbounded bodies from untrusted peers (it buffers the whole body); this body is a Lambda event already in memory and capped at maxBodyBytes above, and busboy cost the legacy routes ~23 KiB and ~3.5 ms of init (docs/benchmarks.md)
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new MultipartFormError('The multipart/form-data body is malformed');
  }
  const fields = new Map<string, string>();
  let parts = 0;
  for (const [name, value] of form) {
    if (++parts > limits.maxParts) throw new MultipartFormError(`The form has more than ${limits.maxParts} parts`);
    if (typeof value !== 'string') throw new MultipartFormError(`File uploads are not accepted (part ${name})`);
    if (Buffer.byteLength(value) > limits.maxFieldBytes)
      throw new MultipartFormError(`The form field ${name} is longer than ${limits.maxFieldBytes} bytes`);
    if (fields.has(name)) throw new MultipartFormError(`The form field ${name} is sent more than once`);
    fields.set(name, value);
  }
  refuseInvalidUtf8(bytes, fields);
  return fields;
};
