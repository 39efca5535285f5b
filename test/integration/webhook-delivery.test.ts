import type { SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryMessage } from '@shared/outbound/delivery-queue';
import { deliverBatch } from '@shared/outbound/delivery-batch';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import { deployedRetryDelaysMs, MAX_DELIVERY_ATTEMPTS } from '@shared/outbound/retry-schedule';
import { webhookEndpointRepository, type WebhookEndpoint } from '@shared/outbound/webhook-endpoint-repository';
import { newWebhookSecret } from '@shared/outbound/webhook-secret';
import { claimDelivery, LEASE_MS } from '@shared/outbound/webhook-marker';
import { checkWebhookHost, publicOnlyLookup, WebhookUrlError } from '@shared/outbound/webhook-url';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';
import { provideServices, resetServices } from '@shared/runtime/services';

/** The delivery function's batch handler against DynamoDB Local, with a recording queue. */
const delays: Array<{ receiptHandle: string; delayMs: number }> = [];
let status = 200;
let hook: WebhookReceiver;
beforeAll(async () => {
  hook = await startWebhookReceiver(() => status);
  provideServices({
    retryDelaysMs: deployedRetryDelaysMs,
    deliveryQueue: {
      send: async () => {},
      retryLater: (receiptHandle, delayMs) => {
        delays.push({ receiptHandle, delayMs });
        return Promise.resolve();
      },
    },
  });
});
afterAll(async () => {
  resetServices('deliveryQueue');
  await hook.close();
});
afterEach(() => {
  delays.length = 0;
  status = 200;
  resetServices('loopbackWebhooks');
});

let n = 0;
const endpoint = async (over: Partial<WebhookEndpoint> = {}): Promise<WebhookEndpoint> => {
  const e: WebhookEndpoint = {
    id: `wh_test${++n}`,
    workspaceId: 'ws_hooks',
    url: hook.url,
    events: ['link.created'],
    enabled: true,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    disabledReason: null,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    ...over,
  };
  await webhookEndpointRepository.create(e);
  return e;
};
const event = (workspaceId = 'ws_hooks'): OutboundEvent => ({
  id: `evt_${n}`,
  type: 'link.created',
  occurredAt: new Date().toISOString(),
  workspaceId,
  data: { id: 'lnk_1' },
});
const batch = (message: DeliveryMessage, receiveCount: number): SQSEvent => ({
  Records: [
    {
      messageId: `m-${receiveCount}`,
      receiptHandle: `rh-${receiveCount}`,
      body: JSON.stringify(message),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: '0',
        SenderId: 'x',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn',
      awsRegion: 'eu-west-1',
    },
  ],
});

describe('webhook delivery (the delivery function)', () => {
  it('a failed attempt stays on the queue, invisible until the next step of the schedule; after the last one it is left to the DLQ', async () => {
    provideServices({ loopbackWebhooks: true });
    const e = await endpoint();
    status = 500;
    const message = { endpointId: e.id, workspaceId: e.workspaceId, event: event() };
    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      const out = await deliverBatch(batch(message, attempt));
      expect(out.batchItemFailures).toEqual([{ itemIdentifier: `m-${attempt}` }]);
    }
    expect(delays.map((d) => d.delayMs)).toEqual([...deployedRetryDelaysMs]);
    const ids = hook.received.slice(-MAX_DELIVERY_ATTEMPTS).map((d) => d.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set([message.event.id]));
    for (const d of hook.received.slice(-MAX_DELIVERY_ATTEMPTS))
      expect(() => new Webhook(e.secret).verify(d.body, d.headers as Record<string, string>)).not.toThrow();
  });

  it('2xx deletes; a removed or disabled endpoint, or an event of another workspace, is dropped without a request', async () => {
    provideServices({ loopbackWebhooks: true });
    const e = await endpoint();
    const before = hook.received.length;
    expect(
      (await deliverBatch(batch({ endpointId: e.id, workspaceId: e.workspaceId, event: event() }, 1)))
        .batchItemFailures,
    ).toEqual([]);
    expect(hook.received.length).toBe(before + 1);
    const off = await endpoint({ enabled: false });
    expect(
      (await deliverBatch(batch({ endpointId: off.id, workspaceId: off.workspaceId, event: event() }, 1)))
        .batchItemFailures,
    ).toEqual([]);
    expect(
      (await deliverBatch(batch({ endpointId: 'wh_gone', workspaceId: 'ws_hooks', event: event() }, 1)))
        .batchItemFailures,
    ).toEqual([]);
    expect(
      (await deliverBatch(batch({ endpointId: e.id, workspaceId: e.workspaceId, event: event('ws_other') }, 1)))
        .batchItemFailures,
    ).toEqual([]);
    expect(hook.received.length).toBe(before + 1);
  });

  it('each event id is posted once per endpoint, whatever is re-put or delivered twice; a replay asked for posts again', async () => {
    provideServices({ loopbackWebhooks: true });
    const [e, other] = [await endpoint(), await endpoint()];
    const message = { endpointId: e.id, workspaceId: e.workspaceId, event: event() };
    const posts = () => hook.received.filter((d) => d.headers['webhook-id'] === message.event.id).length;
    // A failed attempt gives its claim back: the retry posts.
    status = 500;
    expect((await deliverBatch(batch(message, 1))).batchItemFailures).toHaveLength(1);
    status = 200;
    expect((await deliverBatch(batch(message, 2))).batchItemFailures).toEqual([]);
    expect(posts()).toBe(2);
    // The publisher re-put it (a retried stream batch) and SQS delivered a copy twice, two at once: dropped.
    const copies = await Promise.all([deliverBatch(batch(message, 1)), deliverBatch(batch(message, 1))]);
    expect(copies.map((c) => c.batchItemFailures)).toEqual([[], []]);
    expect(posts()).toBe(2);
    // Another endpoint of the workspace gets the same event once too.
    await deliverBatch(batch({ ...message, endpointId: other.id }, 1));
    await deliverBatch(batch({ ...message, endpointId: other.id }, 1));
    expect(posts()).toBe(3);
    // `webhooks replay`: posted again on purpose.
    await deliverBatch(batch({ ...message, replay: true }, 1));
    expect(posts()).toBe(4);
  });

  it('a delivery being made by another attempt is retried later, not posted at the same time', async () => {
    provideServices({ loopbackWebhooks: true });
    const e = await endpoint();
    const message = { endpointId: e.id, workspaceId: e.workspaceId, event: event() };
    const now = new Date();
    expect(await claimDelivery(e.id, message.event.id, now)).toBe('claimed');
    const before = hook.received.length;
    expect((await deliverBatch(batch(message, 1))).batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(hook.received.length).toBe(before);
    // The claimant died: its lease runs out and the next attempt takes over.
    expect(await claimDelivery(e.id, message.event.id, new Date(now.getTime() + LEASE_MS + 1000))).toBe('claimed');
  });

  it('410 Gone disables the endpoint', async () => {
    provideServices({ loopbackWebhooks: true });
    const e = await endpoint();
    status = 410;
    expect(
      (await deliverBatch(batch({ endpointId: e.id, workspaceId: e.workspaceId, event: event() }, 1)))
        .batchItemFailures,
    ).toEqual([]);
    expect(await webhookEndpointRepository.find(e.workspaceId, e.id)).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('410'),
    });
  });

  it('deployed (no loopback), an endpoint on this machine is never called', async () => {
    const e = await endpoint();
    const before = hook.received.length;
    const out = await deliverBatch(batch({ endpointId: e.id, workspaceId: e.workspaceId, event: event() }, 1));
    expect(out.batchItemFailures).toEqual([]); // refused by the URL policy: dropped, not retried
    expect(hook.received.length).toBe(before);
  });

  it('the connection lookup refuses names that resolve to non-public addresses', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      publicOnlyLookup('localhost', {}, (err) => {
        resolve(err);
      });
    });
    expect(error?.code).toBe('EADDRNOTPUBLIC');
    // And `webhooks add` (deployed) refuses such a host, or one that does not resolve.
    await expect(checkWebhookHost(new URL('https://localhost./x'))).rejects.toThrow(WebhookUrlError);
    await expect(checkWebhookHost(new URL('https://no-such-host.invalid/x'))).rejects.toThrow(/does not resolve/);
  });
});
