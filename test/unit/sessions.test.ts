import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MiddlewareObj } from '@middy/core';
import {
  clearedSessionCookie,
  fromConsole,
  SESSION_TTL_SECONDS,
  sessionCookie,
  sessionTokenOf,
} from '@shared/auth/sessions';
import type { ApiContext, ApiEvent, ApiResult } from '@shared/http/api-types';
import { consoleOriginMiddleware } from '@shared/http/middleware/console-origin';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import { isThroughFrontDoor, viewerIp } from '@shared/http/trusted-viewer';

const event = (headers: Record<string, string>, cookies?: string[]): ApiEvent =>
  ({
    headers,
    cookies,
    rawPath: '/v1/links',
    rawQueryString: '',
    requestContext: { http: { method: 'GET', sourceIp: '130.176.0.1' } },
  }) as unknown as ApiEvent;

/** The attributes of a Set-Cookie value, lowercased, in order. */
const attributesOf = (setCookie: string) =>
  setCookie
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());

describe('the session cookie', () => {
  it('is __Host-session, HttpOnly, Secure, SameSite=Strict, Path=/, 12 hours, with no Domain', () => {
    const value = sessionCookie('tok_en-1');
    expect(value.split(';')[0]).toBe('__Host-session=tok_en-1');
    expect(SESSION_TTL_SECONDS).toBe(12 * 60 * 60);
    expect(attributesOf(value).sort()).toEqual(['httponly', 'max-age=43200', 'path=/', 'samesite=strict', 'secure']);
    expect(value.toLowerCase()).not.toContain('domain=');
  });

  it('is cleared with the same attributes and Max-Age=0', () => {
    const value = clearedSessionCookie();
    expect(value.split(';')[0]).toBe('__Host-session=');
    expect(attributesOf(value).sort()).toEqual(['httponly', 'max-age=0', 'path=/', 'samesite=strict', 'secure']);
  });

  it("is read from API Gateway's cookies, else from a Cookie header; other and empty cookies are ignored", () => {
    expect(sessionTokenOf(event({}, ['theme=dark', '__Host-session=abc']))).toBe('abc');
    expect(sessionTokenOf(event({ cookie: 'a=1; __Host-session=xyz; b=2' }))).toBe('xyz');
    expect(sessionTokenOf(event({}, ['session=abc', '__host-session=abc']))).toBeUndefined();
    expect(sessionTokenOf(event({}, ['__Host-session=']))).toBeUndefined();
    expect(sessionTokenOf(event({}))).toBeUndefined();
  });

  it('counts only with x-requested-with: console', () => {
    expect(fromConsole(event({ 'x-requested-with': 'console' }))).toBe(true);
    expect(fromConsole(event({ 'X-Requested-With': 'Console' }))).toBe(true);
    expect(fromConsole(event({ 'x-requested-with': 'XMLHttpRequest' }))).toBe(false);
    expect(fromConsole(event({}))).toBe(false);
  });
});

describe("the console origin check on the service API (the console distribution's origin-verify header)", () => {
  beforeEach(() => {
    vi.stubEnv(ORIGIN_VERIFY_VALUES_ENV, 'current-secret,previous-secret');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const middleware = consoleOriginMiddleware() as Required<
    Pick<MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>, 'before'>
  >;
  const run = async (headers: Record<string, string>) => {
    const e = event({ 'cloudfront-viewer-address': '198.51.100.7:3456', ...headers });
    const answer: unknown = await middleware.before({
      event: e,
      context: {} as ApiContext,
      response: undefined,
      error: undefined,
      internal: {},
    });
    return { answer, trusted: isThroughFrontDoor(e), ip: viewerIp(e) };
  };

  it("with the current or previous secret, trusts the viewer's address", async () => {
    for (const secret of ['current-secret', 'previous-secret'])
      expect(await run({ [ORIGIN_VERIFY_HEADER]: secret })).toEqual({
        answer: undefined,
        trusted: true,
        ip: '198.51.100.7',
      });
  });

  it('without it, or with a wrong one, trusts nothing and refuses nothing (the API is also called directly)', async () => {
    for (const headers of [{}, { [ORIGIN_VERIFY_HEADER]: 'guess' }] as Record<string, string>[])
      expect(await run(headers)).toEqual({ answer: undefined, trusted: false, ip: '130.176.0.1' });
  });

  it('where no front door is configured, trusts nothing even with a header', async () => {
    vi.stubEnv(ORIGIN_VERIFY_VALUES_ENV, undefined);
    expect(await run({ [ORIGIN_VERIFY_HEADER]: 'current-secret' })).toEqual({
      answer: undefined,
      trusted: false,
      ip: '130.176.0.1',
    });
  });
});
