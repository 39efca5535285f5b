import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { replayClick, replaysInLog } from '@shared/clicks/click-replay';
import { getEventSink } from '@shared/events/event-sink';
import { errorLinesDuring } from '@test/support/log-capture';
import { clearHostCache } from '@shared/edge/host-resolver';
import { linkRepository } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA } from './route-cases';
import { provideServices } from '@shared/runtime/services';

/**
 * A DynamoDB that stops answering (the fault proxy holds the calls), in front of the edge: the
 * visitor is answered within the edge's budgets; a click needs no DynamoDB write (its event goes
 * to the stream, the counters follow when DynamoDB answers again); a click whose event could not
 * reach the stream in time is handed off as a replayable record, then replayed.
 */
let t: TestStack;
let proxy: DynamoFaultProxy;
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!);
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  return () => proxy.stop();
});
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
afterEach(() => {
  proxy.clear();
  vi.restoreAllMocks();
});

/**
 * Longer than the local budgets (4 s reads, 5 s recording; deployed 1.5 s and 3 s), so they fire
 * whatever the machine's load; the calls are never answered while stalled.
 */
const STALL_MS = Number.POSITIVE_INFINITY;
/** One click, returned once the edge has finished it: recorded, or logged for replay past its budget (after the response). */
const click = async (key: string) => {
  const res = await edgeRequest(t.edgeUrl, {
    host: t.tenantA.domain,
    path: `/${key}`,
    headers: { 'user-agent': IPHONE_UA },
  });
  await t.idle();
  return res;
};
const create = async (key: string) => {
  const res = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: { 'api-key': t.tenantA.serverKey },
    json: { url: `https://example.com/${key}`, domain: t.tenantA.domain, key },
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; key: string };
};
describe('DynamoDB stalled behind the edge', () => {
  it('writes stalled: the redirect and its event go through at once; the counters catch up, once, when DynamoDB answers again', async () => {
    const link = await create('stall-write');
    expect((await click(link.key)).status).toBe(302); // warms the host cache
    // Every write stalls: the counter consumer's UpdateItem among them. No click waits for it.
    proxy.stall(['UpdateItem', 'PutItem', 'TransactWriteItems'], STALL_MS);
    const { result: res, lines } = await errorLinesDuring(async () => {
      const answer = await edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: `/${link.key}`,
        headers: { 'user-agent': IPHONE_UA },
      });
      // The edge's work after the response (the event put), not the consumer behind the stream.
      await t.stack.invocations.idle();
      return answer;
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/stall-write');
    // The click reached the event stream: nothing to replay, and it is in the lake.
    expect(replaysInLog(lines)).toEqual([]);
    expect((await readLakeEvents()).filter((e) => e.eventType === 'click' && e.linkId === link.id)).toHaveLength(2);
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(1);

    proxy.clear();
    await t.idle();
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(2);
  }, 60_000);

  it('the event stream stalled: the redirect is answered, the click is logged for replay past its budget, and the replay counts it once', async () => {
    const link = await create('stall-stream');
    expect((await click(link.key)).status).toBe(302);
    const stream = getEventSink();
    const held: Array<() => void> = [];
    provideServices({ eventSink: { send: () => new Promise<void>((resolve) => held.push(resolve)) } });
    try {
      const { result: res, lines } = await errorLinesDuring(() => click(link.key));
      expect(res.status).toBe(302);
      const replays = replaysInLog(lines);
      expect(replays).toHaveLength(1);
      expect(replays[0]!.events).toEqual([expect.objectContaining({ eventType: 'click', linkId: link.id })]);
      provideServices({ eventSink: stream });
      await replayClick(replays[0]!);
    } finally {
      provideServices({ eventSink: stream });
      for (const release of held) release();
    }
    await t.idle();
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(2);
    expect((await readLakeEvents()).filter((e) => e.eventType === 'click' && e.linkId === link.id)).toHaveLength(2);
  }, 60_000);

  it("reads stalled: the visitor gets the domain's fallback answer (503 with Retry-After, then its not-found URL once set)", async () => {
    const link = await create('stall-read');
    expect((await click(link.key)).status).toBe(302);
    proxy.stall(['GetItem'], STALL_MS);
    const unavailable = await click(link.key);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('2');
    expect(unavailable.headers['cache-control']).toContain('no-store');
    proxy.clear();

    const domain = (await domainRepository.findById(t.tenantA.workspaceId, t.tenantA.domainId))!;
    await domainRepository.setFallbackUrls(domain, { expiredUrl: null, notFoundUrl: 'https://example.com/während' });
    clearHostCache();
    expect((await click(link.key)).status).toBe(302); // the host (with its fallback) cached again
    proxy.stall(['GetItem'], STALL_MS);
    const fallback = await click(link.key);
    expect(fallback.status).toBe(302);
    expect(fallback.headers.location).toBe('https://example.com/w%C3%A4hrend');
  }, 60_000);
});
