import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreludeStream } from '@shared/local/lambda-streaming';
import { LocalInvocations, type InvocationEnd } from '@shared/local/local-invocations';
import { createLocalApiServer, type LambdaHandler } from '@shared/local/local-server';
import type { RouteDef } from '@shared/routes/route-types';

/**
 * The local server ends a streamed invocation as Lambda's Node.js runtime does: once the handler
 * has returned and, unless it set `context.callbackWaitsForEmptyEventLoop = false`, once nothing
 * it started still holds the event loop; a socket or timer left behind keeps it running to its
 * timeout. Each handler below answers first (the client has its response), then returns leaving
 * something on the loop.
 */
const route = (handler: string): RouteDef => ({
  handler,
  method: 'GET',
  path: `/${handler}`,
  credential: 'none',
  api: 'edge',
  grants: { table: 'none' },
  summary: handler,
  // A short timeout: the invocations that wait for a stalled socket or a long timer end at it.
  lambda: { timeoutSeconds: 1 },
});

/** Cleared when the file ends, whatever the invocations did with them. */
const leftovers: NodeJS.Timeout[] = [];
/** A server that takes requests and never answers them. */
let silent: Server;
let silentPort = 0;
/** Set when the short timer of `finishes` has run. */
let shortTimerRan = false;

const answer = (stream: PreludeStream) => {
  stream.setPrelude({ statusCode: 204 });
  stream.end();
};
/** A streamed handler that answers, then runs `after` and returns. */
const streamed = (after: (context: Context) => void): LambdaHandler =>
  Object.assign(() => Promise.reject(new Error('streamed only')), {
    streaming: (_event: unknown, stream: PreludeStream, context: Context) => {
      answer(stream);
      after(context);
      return Promise.resolve();
    },
  });

const handlers: Record<string, LambdaHandler> = {
  /** A request to a server that never answers, left running. */
  'stalled-socket': streamed(() => {
    const req = request({ host: '127.0.0.1', port: silentPort, method: 'POST', path: '/' });
    req.on('error', () => undefined);
    req.end('{}');
  }),
  /** A 60 s timer, left pending. */
  'long-timer': streamed(() => {
    leftovers.push(setTimeout(() => undefined, 60_000));
  }),
  /** The same timer, but the handler tells the runtime not to wait for the loop. */
  'does-not-wait': streamed((context) => {
    context.callbackWaitsForEmptyEventLoop = false;
    leftovers.push(setTimeout(() => undefined, 60_000));
  }),
  /** The same timer, unref'd: it does not keep a Node.js process alive, nor the invocation. */
  unrefd: streamed(() => {
    leftovers.push(setTimeout(() => undefined, 60_000).unref());
  }),
  /** Work that finishes on its own, well inside the timeout. */
  finishes: streamed(() => {
    setTimeout(() => {
      shortTimerRan = true;
    }, 50);
  }),
};

const invocations = new LocalInvocations();
const server = createLocalApiServer({
  api: 'edge',
  routes: Object.keys(handlers).map(route),
  loadHandler: (r) => Promise.resolve(handlers[r.handler]!),
  invocations,
});
let base = '';
beforeAll(async () => {
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const timer of leftovers) clearTimeout(timer);
  silent.closeAllConnections();
  await Promise.all(
    [server, silent].map(
      (s) =>
        new Promise<void>((resolve) =>
          s.close(() => {
            resolve();
          }),
        ),
    ),
  );
});

/** The client's response, and the end of the invocation that answered it. */
const invoke = async (path: string): Promise<{ status: number; end: InvocationEnd }> => {
  let stop = () => undefined as unknown;
  const ended = new Promise<InvocationEnd>((resolve) => {
    stop = invocations.onEnd((end) => {
      if (end.rawPath === path) resolve(end);
    });
  });
  try {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    return { status: res.status, end: await ended };
  } finally {
    stop();
  }
};

describe('local server: a streamed invocation ends when its event loop is empty, as deployed', () => {
  it('a socket left waiting for an answer keeps the invocation running to its timeout; the client had its response before', async () => {
    const { status, end } = await invoke('/stalled-socket');
    expect(status).toBe(204);
    expect(end).toMatchObject({ status: 'timeout', waitedForEmptyEventLoop: true });
    expect(end.leftOnEventLoop).toContain('TCPWRAP');
  });

  it('so does a pending timer', async () => {
    const { status, end } = await invoke('/long-timer');
    expect(status).toBe(204);
    expect(end).toMatchObject({ status: 'timeout', waitedForEmptyEventLoop: true });
    expect(end.leftOnEventLoop).toContain('Timeout');
  });

  it('with callbackWaitsForEmptyEventLoop = false the invocation ends when the handler returns; what it left is reported', async () => {
    const { end } = await invoke('/does-not-wait');
    expect(end).toMatchObject({ status: 'success', waitedForEmptyEventLoop: false, leftOnEventLoop: ['Timeout'] });
  });

  it("an unref'd timer holds nothing", async () => {
    const { end } = await invoke('/unrefd');
    expect(end).toMatchObject({ status: 'success', waitedForEmptyEventLoop: true, leftOnEventLoop: [] });
  });

  it('work that finishes on its own is waited for, then the invocation ends', async () => {
    const { end } = await invoke('/finishes');
    expect(shortTimerRan).toBe(true);
    expect(end).toMatchObject({ status: 'success', waitedForEmptyEventLoop: true, leftOnEventLoop: [] });
  });
});
