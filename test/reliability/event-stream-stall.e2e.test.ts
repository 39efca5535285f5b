import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayClick, replaysInLog } from '@shared/clicks/click-replay';
import { getEventSink, type EventSink } from '@shared/events/event-sink';
import { createKinesisPut } from '@shared/events/kinesis-client';
import { createStreamSink } from '@shared/events/stream-sink';
import { linkRepository } from '@shared/links/link-repository';
import type { InvocationEnd } from '@shared/local/local-invocations';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { errorLinesDuring } from '@test/support/log-capture';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA } from './route-cases';
import { provideServices } from '@shared/runtime/services';

/**
 * The event stream stalls behind the edge: a loopback Kinesis takes every PutRecords and never
 * answers, in front of the deployed sink (the official client, its timeouts and the sink's
 * retries). The local server ends a streamed invocation as Lambda's runtime does, waiting for
 * its event loop unless the handler says not to (shared/local/invocation-event-loop.ts), and
 * reports each end. The visitor is answered at once; at the click's record budget the put is
 * aborted and the click is logged for replay once; the invocation ends with nothing of it left
 * running (deployed, that would be frozen with the environment and resume, or fail, in a later
 * invocation); the replay counts the click once.
 */
let t: TestStack;
let lake: EventSink;
let kinesis: Server;
let endpoint = '';
/** PutRecords calls the stalled stream has received (none answered). */
const received: IncomingMessage[] = [];

beforeAll(async () => {
  t = await startTestStack();
  lake = getEventSink();
  return () => t.stop();
});
beforeAll(async () => {
  kinesis = createServer((req) => {
    received.push(req);
    req.resume();
  });
  await new Promise<void>((resolve) => kinesis.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(kinesis.address() as AddressInfo).port}`;
  return () =>
    new Promise<void>((resolve) => {
      kinesis.closeAllConnections();
      kinesis.close(() => {
        resolve();
      });
    });
});
afterAll(() => {
  provideServices({ eventSink: lake });
});

/** The deployed sink over the stalled stream: the official Kinesis client, default timeouts and retries. */
const stalledSink = () =>
  createStreamSink({
    putRecords: createKinesisPut({ region: 'us-east-1', endpoint, credentials: loopbackCredentials }),
    streamName: 'events',
  });

describe('the event stream stalled: the click budget cancels the write', () => {
  it('answers the redirect, aborts the put at the budget, ends the invocation with nothing left running; the replay counts the click once', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/stalled-stream', domain: t.tenantA.domain, key: 'stalled-stream' },
    });
    expect(created.status).toBe(201);
    const link = created.body.data as { id: string; key: string };
    const click = () =>
      edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: `/${link.key}`, headers: { 'user-agent': IPHONE_UA } });
    // A first click with the stream healthy: counted, and the edge's caches are warm.
    expect((await click()).status).toBe(302);
    await t.idle();
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(1);

    provideServices({ eventSink: stalledSink() });
    let stopListening = () => undefined as unknown;
    const ended = new Promise<InvocationEnd>((resolve) => {
      stopListening = t.stack.invocations.onEnd((end) => {
        if (end.rawPath === `/${link.key}`) resolve(end);
      });
    });
    let invocation: InvocationEnd;
    let replays: ReturnType<typeof replaysInLog>;
    try {
      const { result, lines } = await errorLinesDuring(async () => {
        const res = await click();
        return { res, end: await ended };
      });
      invocation = result.end;
      replays = replaysInLog(lines);

      // (a) The visitor has the redirect.
      expect(result.res.status).toBe(302);
      expect(result.res.headers.location).toBe('https://example.com/stalled-stream');
      // The stream was tried (and never answered).
      expect(received.length).toBeGreaterThanOrEqual(1);
      // The sink's own last resort (the events in full in an error line) never ran: the budget
      // stopped it, and the click went to the replay log, once.
      expect(lines).not.toContain('Events could not be delivered');
    } finally {
      stopListening();
      provideServices({ eventSink: lake });
    }

    // (b) The invocation ended, not by its timeout, with nothing of the write left on its event
    // loop: no socket still waiting on the stream, no retry timer.
    expect(invocation).toMatchObject({ status: 'success', leftOnEventLoop: [] });
    // The edge handler does not wait for the loop (deployed, the runtime would otherwise hold
    // the invocation for whatever a stalled dependency leaves there).
    expect(invocation.waitedForEmptyEventLoop).toBe(false);

    // (c) One replay record, with the click; replayed, it is counted once.
    expect(replays).toHaveLength(1);
    const replayed = replays[0]!;
    expect(replayed.events).toEqual([expect.objectContaining({ eventType: 'click', linkId: link.id })]);
    await replayClick(replayed);
    await t.idle();
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(2);
    const clickIds = (await readLakeEvents())
      .filter((e) => e.eventType === 'click' && e.linkId === link.id)
      .map((e) => e.eventId);
    expect(clickIds).toHaveLength(2);
    expect(clickIds.filter((id) => id === replayed.events[0]!.eventId)).toHaveLength(1);
  }, 60_000);
});
