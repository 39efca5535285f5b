import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApiServer, type LambdaHandler } from '@shared/local/local-server';
import { log, ShortLogFormatter } from '@shared/util/logger';
import type { RouteDef } from '@shared/routes/route-types';
import { edgeRequest } from '@test/support/edge-client';
import { captureOutput } from '@test/support/log-capture';

const route = (api: RouteDef['api'], handler: string, path: string): RouteDef => ({
  handler,
  method: 'GET',
  path,
  credential: 'none',
  api,
  grants: { table: 'none' },
  summary: handler,
});

const handlers: Record<string, LambdaHandler> = {
  echoed: () => Promise.resolve({ statusCode: 200, headers: { 'X-Request-Id': 'caller-id-1' }, body: '{}' }),
  silent: () => Promise.resolve({ statusCode: 204 }),
  redirect: () =>
    Promise.resolve({ statusCode: 302, headers: { location: 'https://example.com', 'x-request-id': 'click-1' } }),
};

const lines: string[] = [];
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const service = createLocalApiServer({
  api: 'service',
  routes: [route('service', 'echoed', '/v1/things/{id}'), route('service', 'silent', '/v1/silent')],
  loadHandler: (r) => Promise.resolve(handlers[r.handler]!),
  requestLog: (line) => lines.push(line),
});
const edge = createLocalApiServer({
  api: 'edge',
  routes: [route('edge', 'redirect', '/{key}')],
  loadHandler: (r) => Promise.resolve(handlers[r.handler]!),
  requestLog: (line) => lines.push(line),
});
const quiet = createLocalApiServer({
  api: 'service',
  routes: [route('service', 'silent', '/v1/silent')],
  loadHandler: (r) => Promise.resolve(handlers[r.handler]!),
});
let serviceUrl = '';
let edgeUrl = '';
let quietUrl = '';
beforeAll(async () => {
  [serviceUrl, edgeUrl, quietUrl] = await Promise.all([listen(service), listen(edge), listen(quiet)]);
});
afterAll(async () => {
  await Promise.all(
    [service, edge, quiet].map(
      (server) =>
        new Promise<void>((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    ),
  );
});

/** Waits for the request line of the response just read (it is printed when the response closes). */
const nextLine = async (count: number) => {
  while (lines.length < count) await new Promise((r) => setTimeout(r, 10));
  return lines[count - 1]!;
};

describe("the local server's request lines (npm start)", () => {
  it('one line per request: method, path without the query, status, time and the request id the function echoed', async () => {
    lines.length = 0;
    await (await fetch(`${serviceUrl}/v1/things/abc?secret=1`)).text();
    expect(await nextLine(1)).toMatch(/^GET \/v1\/things\/abc 200 \d+ms req=caller-id-1$/);
  });

  it("uses API Gateway's request id when the function echoed none, and says so for a path no route serves", async () => {
    lines.length = 0;
    await (await fetch(`${serviceUrl}/v1/silent`)).text();
    await (await fetch(`${serviceUrl}/nowhere`)).text();
    expect(await nextLine(1)).toMatch(/^GET \/v1\/silent 204 \d+ms req=[0-9a-f-]{36}$/);
    expect(await nextLine(2)).toMatch(/^GET \/nowhere 404 \d+ms req=[0-9a-f-]{36}$/);
  });

  it('names the edge and the link domain (the Host header) on edge lines', async () => {
    lines.length = 0;
    await edgeRequest(edgeUrl, { host: 'go.example.com', path: '/spring?utm_source=x' });
    expect(await nextLine(1)).toMatch(/^edge GET go\.example\.com:\d+\/spring 302 \d+ms req=click-1$/);
  });

  it('prints nothing without a request log (the test stacks and every deployed function)', async () => {
    lines.length = 0;
    const output = captureOutput();
    try {
      expect((await fetch(`${quietUrl}/v1/silent`)).status).toBe(204);
    } finally {
      output.stop();
    }
    expect(output.lines()).toEqual([]);
    expect(lines).toEqual([]);
  });
});

describe('log line formats', () => {
  it("the local short format: level, message and the line's own keys, none of the Lambda context", () => {
    const logger = new Logger({ serviceName: 'link-service', logFormatter: new ShortLogFormatter() });
    logger.appendKeys({ requestId: 'req-1', route: 'GET /{key}' });
    const output = captureOutput();
    try {
      logger.warn('edge reads over budget: fallback answer', { key: 'abc' });
    } finally {
      output.stop();
    }
    expect(output.json()).toEqual([
      {
        level: 'WARN',
        message: 'edge reads over budget: fallback answer',
        requestId: 'req-1',
        route: 'GET /{key}',
        key: 'abc',
      },
    ]);
  });

  it("the functions' logger keeps Powertools' default format when LOCAL_LOG_FORMAT is not set (as deployed)", () => {
    expect(process.env.LOCAL_LOG_FORMAT).toBeUndefined();
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'warn';
    const output = captureOutput();
    try {
      log('warn', 'something looks off', { password: 'hunter2' });
    } finally {
      output.stop();
      process.env.LOG_LEVEL = level;
    }
    const [line] = output.json();
    expect(line).toMatchObject({
      level: 'WARN',
      message: 'something looks off',
      service: 'link-service',
      timestamp: expect.any(String),
      sampling_rate: 0,
      password: '[redacted]',
    });
  });
});
