import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { EdgeVM } from '@edge-runtime/vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

/*
 * @linkservice/sdk outside Node: bundled for no platform (esbuild `platform: 'neutral'`, which
 * resolves no Node built-in), it must import nothing and name no Node global, and it runs in
 * Vercel's Edge Runtime VM (@edge-runtime/vm: a context with the web-standard globals only:
 * fetch, Request, Response, Headers, URL, AbortController, crypto, timers) against a small HTTP
 * server. Deno and Bun themselves run the SDK against the local stack in test/e2e/sdk-deno-bun.e2e.test.ts.
 */

const bundle = async (format: 'esm' | 'iife') => {
  const result = await build({
    entryPoints: [path.join(projectRoot, 'sdk', 'src', 'index.ts')],
    bundle: true,
    format,
    ...(format === 'iife' ? { globalName: 'LinkServiceSdk' } : {}),
    platform: 'neutral',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild wrote no SDK bundle');
  return { code: file.text, metafile: result.metafile };
};

const link = (id: string) => ({ id, url: 'https://example.com/', key: id });
let server: Server;
let baseUrl: string;
const seen: Array<{ method: string; url: string; headers: Record<string, unknown> }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://local');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && url.pathname === '/v1/links') {
      json(201, { success: true, data: link('lnk_new'), requestId: 'req_create' });
    } else if (req.method === 'GET' && url.pathname === '/v1/links') {
      const second = url.searchParams.get('cursor') === 'c2';
      json(200, {
        success: true,
        data: second ? [link('lnk_3')] : [link('lnk_1'), link('lnk_2')],
        pagination: { hasMore: !second, nextCursor: second ? null : 'c2' },
        requestId: 'req_list',
      });
    } else {
      json(
        404,
        { success: false, error: { code: 'not_found', message: 'No such link' }, requestId: 'req_missing' },
        { 'x-request-id': 'req_missing' },
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('@linkservice/sdk on web-standard runtimes', () => {
  it('bundles for no platform: no import left, no Node built-in, no Node global', async () => {
    const { code, metafile } = await bundle('esm');
    const output = Object.values(metafile.outputs)[0];
    expect(output?.imports).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    expect(
      inputs.filter((file) => file.startsWith('node:') || /(^|\/)node_modules\/@types\/node\//.test(file)),
    ).toEqual([]);
    // Its dependencies are in the bundle (the check would pass vacuously without them).
    expect(inputs.some((file) => file.includes('node_modules/openapi-fetch/'))).toBe(true);
    expect(inputs.some((file) => file.includes('node_modules/p-retry/'))).toBe(true);
    // A Node global may only be feature-detected (openapi-fetch looks for undici behind
    // `typeof process === "object"`), never used unguarded.
    const unguarded = code
      .split('\n')
      .filter((line) => /\b(process|Buffer|require|__dirname|__filename|global)\b/.test(line))
      .filter((line) => !/typeof (process|Buffer|require|global)\b/.test(line));
    expect(unguarded).toEqual([]);
  });

  it("runs in the Edge Runtime's VM with its own fetch: create, a list across pages, an error", async () => {
    const { code } = await bundle('iife');
    const vm = new EdgeVM();
    // The context has no Node globals: what the SDK would reach for on Node is not there.
    expect(vm.evaluate<string>('[typeof process, typeof Buffer, typeof require].join()')).toBe(
      'undefined,undefined,undefined',
    );
    vm.evaluate(code);
    const run = vm.evaluate<(baseUrl: string) => Promise<string>>(`(async (baseUrl) => {
      const { LinkService, LinkServiceError } = LinkServiceSdk;
      const service = new LinkService({ apiKey: 'sk_test', baseUrl, retry: { retries: 0 } });
      const created = await service.links.create({ url: 'https://example.com/', domain: 'go.example.com' });
      const ids = [];
      for await (const item of service.links.list({ limit: 2 })) ids.push(item.id);
      let failure = 'none';
      try {
        await service.links.get('lnk_missing');
      } catch (error) {
        failure = [error instanceof LinkServiceError, error.status, error.code, error.requestId].join(' ');
      }
      return JSON.stringify({ created: created.id, ids, failure });
    })`);
    const answer = JSON.parse(await run(baseUrl)) as unknown;
    expect(answer).toEqual({
      created: 'lnk_new',
      ids: ['lnk_1', 'lnk_2', 'lnk_3'],
      failure: 'true 404 not_found req_missing',
    });
    const create = seen.find((request) => request.method === 'POST');
    expect(create?.headers['api-key']).toBe('sk_test');
    // crypto.randomUUID of the edge context made the create's Idempotency-Key.
    expect(create?.headers['idempotency-key']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(seen.filter((request) => request.method === 'GET').map((request) => request.url)).toEqual([
      '/v1/links?limit=2',
      '/v1/links?limit=2&cursor=c2',
      '/v1/links/lnk_missing',
    ]);
  });
});
