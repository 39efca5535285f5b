import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApiServer, type LambdaHandler } from '@shared/local/local-server';
import type { RouteDef } from '@shared/routes/route-types';

const route = (handler: string, path: string, analytics = false): RouteDef => ({
  handler,
  method: 'GET',
  path,
  credential: 'none' as RouteDef['credential'],
  api: 'service',
  grants: { table: 'none', analytics },
  summary: handler,
});

const handlers: Record<string, LambdaHandler> = {
  remaining: async (_event, context) => ({ statusCode: 200, body: JSON.stringify({ remaining: context.getRemainingTimeInMillis() }) }),
  huge: async () => ({ statusCode: 200, body: JSON.stringify({ data: '"'.repeat(3_200_000) }) }),
  path: async (event) => ({ statusCode: 200, body: JSON.stringify({ rawPath: event.rawPath, params: event.pathParameters ?? null }) }),
};
const routes = [route('remaining', '/plain'), route('remaining', '/analytics', true), route('huge', '/huge'), route('path', '/things/{id}')];
const server = createLocalApiServer({ api: 'service', routes, loadHandler: async (r) => handlers[r.handler]! });
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('local server: Lambda and HTTP API limits', () => {
  it("gives each invocation its route's timeout as the context's remaining time", async () => {
    const plain = (await (await fetch(`${base}/plain`)).json()) as { remaining: number };
    const analytics = (await (await fetch(`${base}/analytics`)).json()) as { remaining: number };
    expect(plain.remaining).toBeLessThanOrEqual(10_000);
    expect(plain.remaining).toBeGreaterThan(0);
    expect(analytics.remaining).toBeGreaterThan(10_000);
    expect(analytics.remaining).toBeLessThanOrEqual(29_000);
  });

  it('a response over 6 MB once serialized by Lambda is a failed invocation: 500 Internal Server Error', async () => {
    const res = await fetch(`${base}/huge`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('matches a trailing slash and keeps it in rawPath', async () => {
    const res = await fetch(`${base}/things/abc/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ rawPath: '/things/abc/', params: { id: 'abc' } });
  });
});
