import middy from '@middy/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '@test/support/log-capture';
import { AppError } from '@shared/errors/app-error';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { legacyEnvelopeMiddleware, legacySuccess } from '@shared/http/middleware/legacy-envelope';
import { requestIdMiddleware } from '@shared/http/middleware/request-id';
import { MultipartFormError } from '@shared/http/multipart-form';
import { legacyErrors } from '@shared/legacy/legacy-error';
import { decodeLegacyDeepLinkForm, decodeLegacyLinkForm } from '@shared/legacy/legacy-form';

const event = { headers: { 'x-request-id': 'req-legacy-1' }, routeKey: 'POST /api/mobile/x' } as unknown as ApiEvent;
// The chain as legacyHandler builds it: the route's data answered with `legacySuccess`.
const run = async (fn: () => Promise<unknown>) => {
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>(async () => legacySuccess(await fn()))
    .use(requestIdMiddleware())
    .use(legacyEnvelopeMiddleware());
  const out = await chain(event, {} as ApiContext);
  return { status: out.statusCode, headers: out.headers ?? {}, body: JSON.parse(out.body ?? 'null') };
};

afterEach(() => {
  vi.restoreAllMocks();
  process.env.LOG_LEVEL = 'silent';
});

describe('legacy envelope', () => {
  it('wraps data as 200 {success:true,data} with X-Request-Id and no requestId in the body', async () => {
    const out = await run(() => Promise.resolve({ id: 'lnk_1' }));
    expect(out).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'X-Request-Id': 'req-legacy-1' }),
      body: { success: true, data: { id: 'lnk_1' } },
    });
  });

  it('answers legacy errors with their status and field (msg or error)', async () => {
    expect(await run(() => Promise.reject(legacyErrors.shortLinkRequired()))).toMatchObject({
      status: 400,
      body: { success: false, error: 'shortLink is required' },
    });
    expect(await run(() => Promise.reject(legacyErrors.slugExists()))).toMatchObject({
      status: 200,
      body: { success: false, msg: 'slug already exists' },
    });
    expect(await run(() => Promise.reject(new MultipartFormError('too big', 413)))).toMatchObject({
      status: 413,
      body: { success: false, msg: 'too big' },
    });
  });

  it('maps domain AppErrors: slug_taken is the 200 slug row, others keep their status with msg', async () => {
    expect(await run(() => Promise.reject(new AppError('slug_taken', 'x')))).toMatchObject({
      status: 200,
      body: { success: false, msg: 'slug already exists' },
    });
    expect(await run(() => Promise.reject(new AppError('not_found', 'Deep-link app not found')))).toMatchObject({
      status: 404,
      body: { success: false, msg: 'Deep-link app not found' },
    });
    expect(
      await run(() => Promise.reject(new AppError('invalid_request', "The app's domain is not verified"))),
    ).toMatchObject({ status: 400, body: { success: false, msg: "The app's domain is not verified" } });
  });

  it('answers a bug as 500 {success:false,msg:"Internal server error"} and logs it with the request id', async () => {
    process.env.LOG_LEVEL = 'error';
    const output = captureOutput();
    for (const error of [new TypeError('boom at secret place'), new AppError('internal_error', 'x')]) {
      const out = await run(() => Promise.reject(error));
      expect(out.status).toBe(500);
      expect(out.body).toEqual({ success: false, msg: 'Internal server error' });
      expect(out.headers['X-Request-Id']).toBe('req-legacy-1');
    }
    output.stop();
    const lines = output.json();
    expect(lines[0]).toMatchObject({
      level: 'ERROR',
      requestId: 'req-legacy-1',
      error: { name: 'TypeError', message: 'boom at secret place' },
    });
    expect(lines).toHaveLength(2);
  });
});

describe('legacy form decoding', () => {
  const fields = (o: Record<string, string>) => new Map(Object.entries(o));

  it('decodes objects and tags from JSON text, drops empty and unknown fields', () => {
    expect(
      decodeLegacyLinkForm(
        fields({ url: 'https://a.com', objects: '{"a":[1]}', tags: '["x","y"]', title: '', other: 'z' }),
      ),
    ).toEqual({
      url: 'https://a.com',
      objects: { a: [1] },
      tags: ['x', 'y'],
    });
    expect(decodeLegacyDeepLinkForm(fields({ slug: 'abc', comments: 'c', password: 'p' }))).toEqual({
      slug: 'abc',
      comments: 'c',
      password: 'p',
    });
  });

  it('refuses deeply nested objects and names every invalid field', () => {
    const deep = '['.repeat(40) + ']'.repeat(40);
    expect(() => decodeLegacyLinkForm(fields({ url: 'https://a.com', objects: `{"a":${deep}}` }))).toThrow(
      /nested deeper than 32/,
    );
    expect(() => decodeLegacyDeepLinkForm(fields({ slug: 'v1', title: 'x'.repeat(256) }))).toThrow(
      /^Invalid form: slug is a reserved word; title must be at most 255 characters$/,
    );
  });
});
