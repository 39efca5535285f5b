/**
 * The web console's files on the local service API's origin, as the console distribution serves
 * them deployed: `/console/*` from console/dist, any path that names no file answered with
 * index.html (the app's own routes, e.g. /console/links), and the console's security headers on
 * every answer. Same origin as `/v1/*`, so the session cookie needs no CORS.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { CONSOLE_SECURITY_HEADERS } from '@shared/http/console-headers';

export const CONSOLE_BASE = '/console';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Whether the request is the console's (the path is /console or under /console/). */
export const isConsolePath = (pathname: string): boolean =>
  pathname === CONSOLE_BASE || pathname.startsWith(`${CONSOLE_BASE}/`);

const fileOf = async (file: string) => {
  try {
    const info = await stat(file);
    return info.isFile() ? info : undefined;
  } catch {
    return undefined;
  }
};

const answer = (res: ServerResponse, status: number, headers: Record<string, string>, body = '') => {
  res.writeHead(status, { ...CONSOLE_SECURITY_HEADERS, ...headers });
  res.end(body);
};

/** Serves one console request from `distDir` (the built app). */
export const serveConsole = async (req: IncomingMessage, res: ServerResponse, distDir: string): Promise<void> => {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://local');
  if (method !== 'GET' && method !== 'HEAD') {
    answer(res, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, 'Method Not Allowed');
    return;
  }
  if (url.pathname === CONSOLE_BASE) {
    answer(res, 308, { location: `${CONSOLE_BASE}/${url.search}` });
    return;
  }
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname.slice(CONSOLE_BASE.length + 1));
  } catch {
    answer(res, 400, { 'content-type': 'text/plain; charset=utf-8' }, 'Bad Request');
    return;
  }
  const root = path.resolve(distDir);
  const index = path.join(root, 'index.html');
  const wanted = path.resolve(root, relative);
  // A path that leaves the folder (`..`) names no file of the console.
  const inside = wanted === root || wanted.startsWith(`${root}${path.sep}`);
  const found = inside && relative !== '' ? await fileOf(wanted) : undefined;
  let file: string;
  if (found) file = wanted;
  else if (relative.startsWith('assets/') || path.extname(relative) !== '') {
    // A missing file (an old build's asset) is a 404, not the app's page under a script's name.
    answer(res, 404, { 'content-type': 'text/plain; charset=utf-8' }, 'Not Found');
    return;
  } else if (await fileOf(index)) file = index;
  else {
    answer(
      res,
      503,
      { 'content-type': 'text/plain; charset=utf-8' },
      'The console is not built: `npm run build -w @linkservice/console` (npm start builds it when missing).',
    );
    return;
  }
  const info = await stat(file);
  const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
  // Hashed asset names never change content; the page itself is revalidated each time.
  const cache = file.startsWith(path.join(root, 'assets') + path.sep)
    ? 'public, max-age=31536000, immutable'
    : 'no-cache';
  res.writeHead(200, {
    ...CONSOLE_SECURITY_HEADERS,
    'content-type': type,
    'content-length': String(info.size),
    'cache-control': cache,
  });
  if (method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    createReadStream(file).on('error', reject).pipe(res).on('finish', resolve).on('close', resolve);
  });
};
