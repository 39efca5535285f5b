import { describe, expect, it } from 'vitest';
import { LinkService, LinkServiceError } from '../../sdk/src/index';
import { retryAfterMs } from '../../sdk/src/retry';

const LINK = {
  id: 'lnk_1',
  domain: 'go.example.com',
  key: 'k',
  url: 'https://example.com/',
  shortLink: 'https://go.example.com/k',
};
const ok = (data: unknown, status = 200) =>
  new Response(JSON.stringify({ success: true, data, requestId: 'req_ok' }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
const failure = (status: number, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({
      success: false,
      error: { code: status === 429 ? 'rate_limited' : 'internal', message: 'try later' },
      requestId: `req_${String(status)}`,
    }),
    { status, headers: { 'content-type': 'application/json', ...headers } },
  );

/** A fake fetch answering from a script, recording each request; and a sleep recording each wait. */
const harness = (answers: (() => Response)[], retries?: number) => {
  const requests: Request[] = [];
  const waits: number[] = [];
  const fetch = (input: string | URL | Request) => {
    const request = input instanceof Request ? input : new Request(input);
    requests.push(request);
    const answer = answers[requests.length - 1];
    if (!answer) throw new Error(`unexpected request ${String(requests.length)}`);
    return Promise.resolve(answer());
  };
  const sdk = new LinkService({
    apiKey: 'sk_test',
    baseUrl: 'https://api.example.com',
    fetch,
    retry: {
      ...(retries === undefined ? {} : { retries }),
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    },
  });
  return { sdk, requests, waits };
};

describe('@linkservice/sdk retries', () => {
  it('retries a GET answered 503 then 429 with backoff, and answers the success', async () => {
    const { sdk, requests, waits } = harness([() => failure(503), () => failure(429), () => ok(LINK)]);
    expect(await sdk.links.get('lnk_1')).toEqual(LINK);
    expect(requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    // Backoff doubles from 500 ms, with jitter between half and the whole of it.
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1000);
  });

  it('waits what Retry-After says (seconds or an HTTP date), capped', async () => {
    const soon = new Date(Date.now() + 60 * 60 * 1000).toUTCString();
    const { sdk, waits } = harness([
      () => failure(429, { 'retry-after': '3' }),
      () => failure(429, { 'retry-after': soon }),
      () => ok(LINK),
    ]);
    await sdk.links.get('lnk_1');
    expect(waits[0]).toBe(3000);
    expect(waits[1]).toBe(30_000);
    expect(retryAfterMs(new Response(null, { headers: { 'retry-after': 'soon' } }))).toBeUndefined();
    expect(
      retryAfterMs(
        new Response(null, { headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' } }),
        Date.UTC(2026, 0, 1),
      ),
    ).toBe(10_000);
  });

  it('gives up after the bounded number of retries with the last answer as LinkServiceError', async () => {
    const { sdk, requests } = harness([() => failure(503), () => failure(502), () => failure(429)]);
    const error = await sdk.links.get('lnk_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkServiceError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: 'req_429' });
    expect(requests).toHaveLength(3);
  });

  it('retries a create with its Idempotency-Key, sending the same key and body each time', async () => {
    const { sdk, requests } = harness([() => failure(500), () => ok(LINK, 201)]);
    await sdk.links.create({ url: 'https://example.com/', domain: 'go.example.com' });
    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(first?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers.get('idempotency-key')).toBe(first?.headers.get('idempotency-key'));
    expect(await second?.text()).toBe(JSON.stringify({ url: 'https://example.com/', domain: 'go.example.com' }));
  });

  it('does not retry a PATCH, a DELETE, a client POST or a 4xx', async () => {
    const patch = harness([() => failure(503)]);
    await expect(patch.sdk.links.update('lnk_1', { title: 't' })).rejects.toMatchObject({ status: 503 });
    expect(patch.requests).toHaveLength(1);
    const archive = harness([() => failure(500)]);
    await expect(archive.sdk.links.archive('lnk_1')).rejects.toMatchObject({ status: 500 });
    expect(archive.requests).toHaveLength(1);
    const click = harness([() => failure(503)]);
    await expect(click.sdk.client.click({ linkId: 'lnk_1' })).rejects.toMatchObject({ status: 503 });
    expect(click.requests).toHaveLength(1);
    const notFound = harness([() => failure(404)]);
    await expect(notFound.sdk.links.get('lnk_1')).rejects.toMatchObject({ status: 404 });
    expect(notFound.requests).toHaveLength(1);
  });

  it('retries: 0 turns retries off', async () => {
    const { sdk, requests } = harness([() => failure(503)], 0);
    await expect(sdk.links.get('lnk_1')).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(1);
  });

  it('sends the server key as api-key and a publishable key as x-publishable-key', async () => {
    const { sdk, requests } = harness([() => ok(LINK)]);
    await sdk.links.get('lnk_1');
    expect(requests[0]?.headers.get('api-key')).toBe('sk_test');
    const seen: Request[] = [];
    const client = new LinkService({
      publishableKey: 'pk_test',
      headers: { 'x-ios-bundle-id': 'com.example.app' },
      baseUrl: 'https://api.example.com/',
      fetch: (input: string | URL | Request) => {
        seen.push(input as Request);
        return Promise.resolve(ok({ linkId: 'lnk_1' }));
      },
    });
    await client.client.resolve({ linkId: 'lnk_1' });
    expect(seen[0]?.url).toBe('https://api.example.com/v1/client/resolve');
    expect(seen[0]?.headers.get('x-publishable-key')).toBe('pk_test');
    expect(seen[0]?.headers.get('x-ios-bundle-id')).toBe('com.example.app');
    expect(seen[0]?.headers.has('api-key')).toBe(false);
  });
});
