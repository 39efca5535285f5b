import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_SECURITY_HEADERS } from '@shared/http/console-headers';
import { isConsolePath, serveConsole } from '@shared/local/console-static';

let root: string;
let server: Server;
let base: string;
let missingBase: string;
let missingServer: Server;

const listen = async (dist: string): Promise<{ server: Server; url: string }> => {
  const s = createServer((req, res) => {
    void serveConsole(req, res, dist);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
};

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'console-static-'));
  const dist = path.join(root, 'dist');
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // A file beside the build that no request may reach.
  writeFileSync(path.join(root, 'secret.txt'), 'not the console');
  ({ server, url: base } = await listen(dist));
  ({ server: missingServer, url: missingBase } = await listen(path.join(root, 'not-built')));
});

afterAll(async () => {
  await Promise.all([server, missingServer].map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(root, { recursive: true, force: true });
});

const expectSecurityHeaders = (response: Response) => {
  for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect(response.headers.get(name)).toBe(value);
};

describe('the console paths', () => {
  it('are /console and what is under /console/, nothing else', () => {
    expect(isConsolePath('/console')).toBe(true);
    expect(isConsolePath('/console/links/lnk_1')).toBe(true);
    expect(isConsolePath('/consoles')).toBe(false);
    expect(isConsolePath('/v1/links')).toBe(false);
  });
});

describe('serveConsole', () => {
  it('answers a file with its content type and caching, and the security headers', async () => {
    const script = await fetch(`${base}/console/assets/index-abc.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toBe('console.log(1)');
    expectSecurityHeaders(script);
    const icon = await fetch(`${base}/console/favicon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it("answers the app's own routes with index.html, revalidated", async () => {
    for (const route of ['/console/', '/console/links', '/console/links/lnk_1?q=x']) {
      const page = await fetch(`${base}${route}`);
      expect(page.status, route).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(await page.text()).toContain('<div id="root">');
      expectSecurityHeaders(page);
    }
  });

  it('sends /console to /console/ with the query', async () => {
    const response = await fetch(`${base}/console?x=1`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/console/?x=1');
  });

  it('answers 404 for a missing asset and for a path that leaves the build folder', async () => {
    expect((await fetch(`${base}/console/assets/gone.js`)).status).toBe(404);
    // `%2f` is not a separator to URL parsers, so the request keeps it; decoded, it is `../`.
    const escape = await fetch(`${base}/console/..%2fsecret.txt`);
    expect(escape.status).toBe(404);
    expect(await escape.text()).not.toContain('not the console');
  });

  it('refuses other methods than GET and HEAD', async () => {
    const response = await fetch(`${base}/console/`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/console/links`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('<!doctype html><div id="root"></div>'.length));
  });

  it('says how to build the console when it is not built', async () => {
    const response = await fetch(`${missingBase}/console/links`);
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build -w @linkservice/console');
  });
});
