import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEventSink, type EventSink } from '@shared/events/event-sink';
import { linkRepository } from '@shared/links/link-repository';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { IPHONE_UA } from '@test/reliability/route-cases';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { provideServices } from '@shared/runtime/services';

let t: TestStack;
let lake: EventSink;
beforeAll(async () => {
  t = await startTestStack();
  lake = getEventSink();
  return () => t.stop();
});
afterAll(() => {
  provideServices({ eventSink: lake });
});

/** An event sink that holds every send until `open()`: the click's recording cannot finish before. */
const heldSink = (inner: EventSink) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const state = { held: 0 };
  // The inner sink's own methods (the local stream's drained(), ...) stay reachable.
  const sink = Object.assign(Object.create(inner) as EventSink, {
    send: async (...args: Parameters<EventSink['send']>) => {
      state.held += 1;
      await gate;
      return inner.send(...args);
    },
  });
  return { sink, state, open };
};

describe('the visitor never waits for the click to be recorded', () => {
  it('the redirect arrives while the recording is held; the same invocation finishes it after, and the click counts', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/after', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body.data as { id: string; key: string };
    // Warm the host cache first, so the click below reads nothing but its slug.
    expect(
      (
        await edgeRequest(t.edgeUrl, {
          host: t.tenantA.domain,
          path: '/warm-up-nothing-here',
          headers: { 'user-agent': IPHONE_UA },
        })
      ).status,
    ).toBe(404);
    await t.idle();

    const held = heldSink(lake);
    provideServices({ eventSink: held.sink });
    try {
      const res = await edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: `/${key}`,
        headers: { 'user-agent': IPHONE_UA },
      });
      // The whole response (status, Location, end of body) is here while the click's event is held.
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/after');
      expect(held.state.held).toBe(1);
      // The invocation is still running (its concurrency slot and timeout last until the recording ends).
      expect(t.stack.invocations.inFlight).toBe(1);
      expect((await readLakeEvents()).filter((e) => e.linkId === id)).toEqual([]);

      held.open();
      await t.idle();
      expect(t.stack.invocations.inFlight).toBe(0);
      const events = (await readLakeEvents()).filter((e) => e.linkId === id);
      expect(events.map((e) => e.eventType)).toEqual(['click']);
      expect((await linkRepository.findById(id, true))?.clicks).toBe(1);
    } finally {
      held.open();
      provideServices({ eventSink: lake });
    }
  });
});
