import { describe, expect, it } from 'vitest';
import { captureOutput } from '@test/support/log-capture';
import * as z from 'zod';
import { AppError } from '@shared/errors/app-error';
import { errorStatus } from '@shared/errors/error-code';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { pickRequestId } from '@shared/http/middleware/request-id';
import { v1Handler } from '@shared/http/v1-handler';
import { routeByHandler } from '@shared/routes/route-table';

const event = (over: Partial<ApiEvent> = {}): ApiEvent =>
  ({
    version: '2.0',
    routeKey: 'ANY /x',
    rawPath: '/x',
    rawQueryString: '',
    headers: {},
    requestContext: { http: { method: 'POST', path: '/x', sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
    ...over,
  }) as ApiEvent;

const context = {} as ApiContext;
const parse = (result: any) => ({ status: result.statusCode, headers: result.headers, body: JSON.parse(result.body) });

// The not-found route's row needs no key, so it exercises the chain without DynamoDB; each test
// gives it its own request schemas.
const notFoundRow = routeByHandler('not-found');
const throwing = (error: Error) => v1Handler({ ...notFoundRow, request: {} }, () => Promise.reject(error));

describe('v1 envelope and error mapping', () => {
  it('maps every error code to its status in the v1 envelope with the request id', async () => {
    for (const [code, status] of Object.entries(errorStatus)) {
      const out = parse(
        await throwing(new AppError(code as keyof typeof errorStatus, `msg ${code}`, [{ path: 'a', message: 'b' }]))(
          event({ headers: { 'x-request-id': 'req-123' } }),
          context,
        ),
      );
      expect(out.status).toBe(status);
      expect(out.body).toEqual({
        success: false,
        error: { code, message: `msg ${code}`, details: [{ path: 'a', message: 'b' }] },
        requestId: 'req-123',
      });
      expect(out.headers['X-Request-Id']).toBe('req-123');
    }
  });

  it('turns an unknown error into a generic 500 without internals, and logs it with the request id', async () => {
    const output = captureOutput();
    process.env.LOG_LEVEL = 'error';
    const out = parse(await throwing(new Error('secret database detail'))(event(), context));
    process.env.LOG_LEVEL = 'silent';
    output.stop();
    expect(out.status).toBe(500);
    expect(out.body.error).toEqual({ code: 'internal_error', message: 'Something went wrong on our side' });
    expect(out.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(out.body)).not.toContain('secret database detail');
    const logged = output.json();
    expect(logged).toEqual([expect.objectContaining({ level: 'ERROR', requestId: out.body.requestId })]);
    expect(JSON.stringify(logged)).toContain('secret database detail');
  });

  it('wraps a reply in the success envelope', async () => {
    const ok = v1Handler({ ...notFoundRow, request: { query: z.object({ a: z.string() }) } }, ({ query, requestId }) =>
      Promise.resolve({
        status: 200,
        data: { echo: query.a, requestId },
        pagination: { limit: 1, nextCursor: null, hasMore: false },
      }),
    );
    const out = parse(await ok(event({ queryStringParameters: { a: 'b' } }), context));
    expect(out.status).toBe(200);
    expect(out.body).toEqual({
      success: true,
      data: { echo: 'b', requestId: out.body.requestId },
      pagination: { limit: 1, nextCursor: null, hasMore: false },
      requestId: out.headers['X-Request-Id'],
    });
  });

  it('answers 400 invalid_request with a detail per bad field', async () => {
    const h = v1Handler(
      { ...notFoundRow, request: { query: z.object({ a: z.string(), b: z.coerce.number().int() }) } },
      () => Promise.resolve({ status: 200 }),
    );
    const out = parse(await h(event({ queryStringParameters: { b: 'x' } }), context));
    expect(out.status).toBe(400);
    expect(out.body.error.code).toBe('invalid_request');
    expect(out.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['a', 'b']);
  });
});

describe('request id', () => {
  it('keeps a safe caller id and replaces anything that could inject headers', () => {
    expect(pickRequestId('abc-123_X.y:z')).toBe('abc-123_X.y:z');
    for (const bad of ['a\r\nSet-Cookie: x=1', 'x'.repeat(129), '', 'with space', 'ümlaut']) {
      const id = pickRequestId(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(pickRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
