import type { HttpResponse } from './http-client';

const parse = async (response: Response): Promise<HttpResponse> => {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body, text };
};

/** POSTs a real multipart/form-data body built by the platform's FormData (as a mobile app would). */
export const postForm = async (
  baseUrl: string,
  path: string,
  fields: Record<string, string | Blob>,
  headers: Record<string, string> = {},
): Promise<HttpResponse> => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return parse(await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: form }));
};

/** A hand-built multipart body (CRLF line breaks) for malformed and edge cases. */
export const multipartText = (
  boundary: string,
  parts: Array<{ name: string; value: string; filename?: string }>,
  close = true,
) =>
  parts
    .map(
      (p) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n` +
        `${p.filename ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${p.value}\r\n`,
    )
    .join('') + (close ? `--${boundary}--\r\n` : '');
