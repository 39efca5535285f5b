import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqsDeliveryQueue } from '@shared/outbound/delivery-queue';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import { createEventBridgeBus } from '@shared/outbound/event-bus';
import { loopbackCredentials } from '@test/support/aws-loopback';

/** A loopback AWS JSON endpoint answering from a list of replies, in order (the last one repeats). */
const seen: Array<{ target: string; body: any; authorization: string }> = [];
let replies: unknown[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({
      target: String(req.headers['x-amz-target']),
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      authorization: String(req.headers.authorization),
    });
    const next = replies.length > 1 ? replies.shift() : replies[0];
    const reply = typeof next === 'function' ? (next as (body: any) => unknown)(seen.at(-1)!.body) : next;
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(reply ?? {}));
  });
});
let endpoint = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    ),
);
beforeEach(() => {
  seen.length = 0;
});

const event = (n: number): OutboundEvent => ({
  id: `evt_${n}`,
  type: 'link.created',
  occurredAt: '2026-01-01T00:00:00.000Z',
  workspaceId: 'ws_1',
  data: { id: `lnk_${n}` },
});

describe('EventBridge bus over the official client (wire format)', () => {
  it('PutEvents: source = stack name, detail-type = type, detail = the envelope; 10 per call; failed entries retried alone', async () => {
    const client = new EventBridgeClient({
      region: 'eu-west-1',
      endpoint,
      credentials: loopbackCredentials,
      maxAttempts: 1,
    });
    const bus = createEventBridgeBus({ client, busName: 'Acme-events', source: 'Acme' });
    replies = [
      {
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'a' },
          { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' },
          ...Array(8).fill({ EventId: 'x' }),
        ],
      },
      { FailedEntryCount: 0, Entries: [{ EventId: 'b' }] },
      { FailedEntryCount: 0, Entries: [{ EventId: 'c' }, { EventId: 'd' }] },
    ];
    await bus.put(Array.from({ length: 12 }, (_, i) => event(i)));
    client.destroy();
    expect(seen.map((s) => s.target)).toEqual(['AWSEvents.PutEvents', 'AWSEvents.PutEvents', 'AWSEvents.PutEvents']);
    expect(seen[0]!.authorization).toMatch(/\/eu-west-1\/events\/aws4_request/);
    expect(seen[0]!.body.Entries).toHaveLength(10);
    const first = seen[0]!.body.Entries[0];
    expect(first).toMatchObject({ EventBusName: 'Acme-events', Source: 'Acme', DetailType: 'link.created' });
    expect(JSON.parse(first.Detail)).toEqual(event(0));
    expect(seen[1]!.body.Entries.map((e: any) => JSON.parse(e.Detail).id)).toEqual(['evt_1']);
    expect(seen[2]!.body.Entries.map((e: any) => JSON.parse(e.Detail).id)).toEqual(['evt_10', 'evt_11']);
  });

  it('throws when entries keep failing (the stream batch is then retried)', async () => {
    const client = new EventBridgeClient({
      region: 'eu-west-1',
      endpoint,
      credentials: loopbackCredentials,
      maxAttempts: 1,
    });
    const bus = createEventBridgeBus({ client, busName: 'b', source: 's' });
    replies = [{ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'boom' }] }];
    await expect(bus.put([event(1)])).rejects.toThrow(/InternalFailure/);
    client.destroy();
  });
});

describe('SQS delivery queue over the official client (wire format)', () => {
  it('SendMessageBatch of the delivery messages (10 per call, failures resent), ChangeMessageVisibility for the backoff', async () => {
    const client = new SQSClient({ region: 'eu-west-1', endpoint, credentials: loopbackCredentials, maxAttempts: 1 });
    const queueUrl = `${endpoint}/111111111111/deliveries`;
    const queue = createSqsDeliveryQueue({ client, queueUrl });
    replies = [
      { Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] },
      // SQS answers the MD5 of each body; the SDK client checks it.
      (body: any) => ({
        Successful: body.Entries.map((e: any) => ({
          Id: e.Id,
          MessageId: 'm1',
          MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex'),
        })),
        Failed: [],
      }),
    ];
    const message = { endpointId: 'wh_1', workspaceId: 'ws_1', event: event(1) };
    await queue.send([message]);
    expect(seen.map((s) => s.target)).toEqual(['AmazonSQS.SendMessageBatch', 'AmazonSQS.SendMessageBatch']);
    expect(seen[0]!.body.QueueUrl).toBe(queueUrl);
    expect(JSON.parse(seen[1]!.body.Entries[0].MessageBody)).toEqual(message);
    replies = [{}];
    await queue.retryLater('rh-1', 300_000);
    await queue.retryLater('rh-2', 100 * 3600e3);
    client.destroy();
    expect(seen[2]).toMatchObject({
      target: 'AmazonSQS.ChangeMessageVisibility',
      body: { QueueUrl: queueUrl, ReceiptHandle: 'rh-1', VisibilityTimeout: 300 },
    });
    // Never past SQS's 12-hour maximum (counted from the receive).
    expect(seen[3]!.body.VisibilityTimeout).toBe(12 * 3600 - 300);
  });
});
