export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Small fetch wrapper for end-to-end tests: JSON in, parsed JSON (or text) out. */
export const http = async <T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; json?: unknown; body?: string | Buffer } = {},
): Promise<HttpResponse<T>> => {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
};
