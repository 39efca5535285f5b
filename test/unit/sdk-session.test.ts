import { describe, expect, it } from 'vitest';
import { LinkService, LinkServiceError } from '../../sdk/src/index';

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A session-mode client over a fake fetch that records each request and answers from a script. */
const harness = (answers: (() => Response)[]) => {
  const requests: Request[] = [];
  const fetch = (input: string | URL | Request) => {
    const request = input instanceof Request ? input : new Request(input);
    requests.push(request);
    const answer = answers[requests.length - 1];
    if (!answer) throw new Error(`unexpected request ${String(requests.length)}`);
    return Promise.resolve(answer());
  };
  const sdk = new LinkService({ session: true, baseUrl: 'https://console.example.com/', fetch, retry: { retries: 0 } });
  return { sdk, requests };
};

const SESSION = { workspaceId: 'ws_1', scopes: ['read'], expiresAt: '2030-01-01T12:00:00.000Z' };

describe('SDK session mode (the web console)', () => {
  it('sessions.create posts the key in the body, with no api-key header, and answers the session', async () => {
    const { sdk, requests } = harness([() => json({ success: true, data: SESSION, requestId: 'r1' }, 201)]);
    expect(await sdk.sessions.create({ apiKey: 'sk_secret' })).toEqual(SESSION);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('https://console.example.com/v1/sessions');
    expect(request?.headers.get('api-key')).toBeNull();
    expect(request?.headers.get('x-requested-with')).toBe('console');
    expect(request?.credentials).toBe('same-origin');
    expect(await request?.json()).toEqual({ apiKey: 'sk_secret' });
  });

  it('every other request carries the console header and the browser cookie (same-origin credentials), never a key', async () => {
    const page = {
      success: true,
      data: [],
      pagination: { limit: 10, nextCursor: null, hasMore: false },
      requestId: 'r',
    };
    const { sdk, requests } = harness([() => json(page, 200)]);
    const result = await sdk.links.list({ limit: 10 });
    expect(result.data).toEqual([]);
    const [request] = requests;
    expect(request?.url).toBe('https://console.example.com/v1/links?limit=10');
    expect(request?.headers.get('x-requested-with')).toBe('console');
    expect(request?.headers.get('api-key')).toBeNull();
    expect(request?.credentials).toBe('same-origin');
  });

  it('sessions.delete signs out (204, no body) and a refused sign-in throws LinkServiceError', async () => {
    const { sdk, requests } = harness([
      () => new Response(null, { status: 204 }),
      () =>
        json(
          {
            success: false,
            error: { code: 'unauthorized', message: 'A valid API key is required' },
            requestId: 'req_401',
          },
          401,
        ),
    ]);
    await expect(sdk.sessions.delete()).resolves.toBeUndefined();
    expect(requests[0]?.method).toBe('DELETE');
    expect(requests[0]?.url).toBe('https://console.example.com/v1/sessions/current');
    const error = await sdk.sessions.create({ apiKey: 'sk_wrong' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkServiceError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req_401' });
  });

  it('a failed sign-out throws; session mode and a key together are refused', async () => {
    const { sdk } = harness([
      () => json({ success: false, error: { code: 'internal_error', message: 'x' }, requestId: 'r5' }, 500),
    ]);
    await expect(sdk.sessions.delete()).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect(() => new LinkService({ session: true, apiKey: 'sk_x', baseUrl: 'https://a.example' })).toThrow(TypeError);
  });

  it('without session mode the key is sent and no console header', async () => {
    const requests: Request[] = [];
    const sdk = new LinkService({
      apiKey: 'sk_key',
      baseUrl: 'https://api.example.com',
      fetch: (input: string | URL | Request) => {
        requests.push(input as Request);
        return Promise.resolve(json({ success: true, data: SESSION, requestId: 'r' }, 201));
      },
    });
    await sdk.sessions.create({ apiKey: 'sk_other' });
    expect(requests[0]?.headers.get('x-requested-with')).toBeNull();
    expect(requests[0]?.headers.get('api-key')).toBe('sk_key');
  });
});
