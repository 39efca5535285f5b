import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalInvocations } from '@shared/local/local-invocations';
import { createLocalApiServer, type LambdaHandler } from '@shared/local/local-server';
import type { RouteDef } from '@shared/routes/route-types';

const route = (handler: string, path: string, analytics = false): RouteDef => ({
  handler,
  method: 'GET',
  path,
  credential: 'none',
  api: 'service',
  grants: { table: 'none', analytics },
  summary: handler,
});

const handlers: Record<string, LambdaHandler> = {
  remaining: (_event, context) =>
    Promise.resolve({
      statusCode: 200,
      body: JSON.stringify({ remaining: context.getRemainingTimeInMillis() }),
    }),
  huge: () => Promise.resolve({ statusCode: 200, body: JSON.stringify({ data: '"'.repeat(3_200_000) }) }),
  path: (event) =>
    Promise.resolve({
      statusCode: 200,
      body: JSON.stringify({ rawPath: event.rawPath, params: event.pathParameters ?? null }),
    }),
  /** Blocks until the test releases it; answers the remaining time it saw when it started. */
  held: async (_event, context) => {
    const remaining = context.getRemainingTimeInMillis();
    started += 1;
    await new Promise<void>((resolve) => releases.push(resolve));
    return { statusCode: 200, body: JSON.stringify({ remaining }) };
  },
};
let started = 0;
const releases: (() => void)[] = [];
const routes = [
  route('remaining', '/plain'),
  route('remaining', '/analytics', true),
  route('huge', '/huge'),
  route('path', '/things/{id}'),
  route('held', '/held'),
];
const invocations = new LocalInvocations(3);
const server = createLocalApiServer({
  api: 'service',
  routes,
  loadHandler: (r) => Promise.resolve(handlers[r.handler]!),
  invocations,
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    ),
);

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

  it('runs at most its concurrency at once; the rest wait in order and their timeout starts when they run', async () => {
    // Only Date is faked (frozen): the clock moves when the test moves it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const answers = Array.from({ length: 10 }, () =>
        fetch(`${base}/held`).then(async (r) => ({ status: r.status, ...((await r.json()) as { remaining: number }) })),
      );
      await waitFor(() => started === 3 && invocations.queued === 7);
      // A minute passes while seven requests wait for a slot: far past their 10 s timeout had it
      // started when they arrived.
      vi.setSystemTime(Date.now() + 60_000);
      let released = 0;
      while (released < 10) {
        await waitFor(() => started > released);
        expect(invocations.inFlight).toBeLessThanOrEqual(3);
        releases.shift()!();
        released += 1;
      }
      const results = await Promise.all(answers);
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      // Every one, queued or not, began with its whole timeout.
      expect(results.map((r) => r.remaining)).toEqual(Array(10).fill(10_000));
      expect(invocations.peak).toBe(3);
      await invocations.idle();
      expect(invocations.inFlight).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** Resolves once `condition` holds, checking after each turn of the event loop (no timers). */
const waitFor = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
};
