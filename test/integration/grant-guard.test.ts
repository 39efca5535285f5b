import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { blankEvent } from '@shared/events/event-record';
import { createLocalEventStream } from '@shared/events/local-event-stream';
import { guardEventSink, installTableGrantGuard, routeContext } from '@shared/local/grant-guard';
import {
  clickCountersConsumer,
  lakeCompactionConsumer,
  outboundPublisherConsumer,
  redriveConsumer,
  webhookDeliveryConsumer,
} from '@shared/routes/consumer-specs';
import { routeByHandler } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';

const route = (grants: RouteDef['grants']): RouteDef => ({
  handler: 'x',
  method: 'GET',
  path: '/x',
  credential: 'none',
  api: 'service',
  grants,
  summary: 'x',
});

describe('local grant guards (IAM on one machine)', () => {
  installTableGrantGuard(getDocumentClient());
  const put = (pk = 'LINK#guard') =>
    getDocumentClient().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: 'x' } }));
  const get = () =>
    getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: { pk: 'LINK#guard', sk: 'x' } }));

  it('lets a read route read and refuses its writes with AccessDeniedException', async () => {
    await routeContext.run(route({ table: 'read', reads: ['LINK#'] }), async () => {
      await expect(get()).resolves.toBeDefined();
      await expect(put()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
  });

  it('refuses every table call on a route without table access, and allows writes on readWrite routes', async () => {
    await routeContext.run(route({ table: 'none' }), async () => {
      await expect(get()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    await routeContext.run(route({ table: 'readWrite', writes: ['LINK#'] }), async () => {
      await expect(put()).resolves.toBeDefined();
    });
    await expect(put('APIKEY#outside-any-route')).resolves.toBeDefined();
  });

  it('lets a write route write only under its key prefixes (dynamodb:LeadingKeys), in transactions too', async () => {
    await routeContext.run(route({ table: 'readWrite', writes: ['LINK#', 'SLUG#'] }), async () => {
      await expect(put('APIKEY#stolen')).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('APIKEY#'),
      });
      await expect(
        getDocumentClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: 'SECRET', sk: 'cursor-signing' },
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: { ':v': 1 },
          }),
        ),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
      const transaction = (pk: string) =>
        getDocumentClient().send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName(), Item: { pk: 'LINK#t', sk: 'x' } } },
              { Put: { TableName: tableName(), Item: { pk, sk: 'x' } } },
            ],
          }),
        );
      await expect(transaction('WS#other')).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(transaction('SLUG#ok')).resolves.toBeDefined();
      const batch = (pk: string) =>
        getDocumentClient().send(
          new BatchWriteCommand({
            RequestItems: {
              [tableName()]: [
                { PutRequest: { Item: { pk: 'LINK#b', sk: 'x' } } },
                { PutRequest: { Item: { pk, sk: 'x' } } },
              ],
            },
          }),
        );
      await expect(batch('APIKEY#b')).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(batch('SLUG#b')).resolves.toBeDefined();
    });
    await routeContext.run(route({ table: 'readWrite' }), async () => {
      await expect(put()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
  });

  it('refuses Scan to every route, and index Queries to routes that do not query indexes', async () => {
    const scan = () => getDocumentClient().send(new ScanCommand({ TableName: tableName(), Limit: 1 }));
    const indexQuery = () =>
      getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'none' },
        }),
      );
    await routeContext.run(route({ table: 'readWrite', writes: ['LINK#'] }), async () => {
      await expect(scan()).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(indexQuery()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    await routeContext.run(route({ table: 'read', indexes: ['none'] }), async () => {
      await expect(indexQuery()).resolves.toBeDefined();
    });
  });

  it('enforces the read prefixes of the template: a function reading outside them is refused (edge, client, list routes)', async () => {
    const getKey = (pk: string) =>
      getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'x' } }));
    const query = (pk: string, IndexName?: string) =>
      getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName,
          KeyConditionExpression: `${IndexName ? `${IndexName}pk` : 'pk'} = :p`,
          ExpressionAttributeValues: { ':p': pk },
        }),
      );
    const refused = (action: string, prefix: string) =>
      expect.objectContaining({
        name: 'AccessDeniedException',
        message: expect.stringContaining(`${action} on partition key ${prefix}`),
      });
    // The edge: its slug records yes; webhook endpoints (signing secrets) and API keys no, nor link writes.
    await routeContext.run(routeByHandler('edge-links'), async () => {
      await expect(getKey('SLUG#go.example.com#k')).resolves.toBeDefined();
      await expect(getKey('WEBHOOKS#ws_1')).rejects.toEqual(refused('dynamodb:GetItem', 'WEBHOOKS#'));
      await expect(query('WEBHOOKS#ws_1')).rejects.toEqual(refused('dynamodb:Query', 'WEBHOOKS#'));
      await expect(getKey('APIKEY#hash')).rejects.toEqual(refused('dynamodb:GetItem', 'APIKEY#'));
      await expect(put('LINK#edge')).rejects.toEqual(refused('dynamodb:PutItem', 'LINK#'));
    });
    // A client function: the API key it authenticates with by GetItem only; no other key read.
    await routeContext.run(routeByHandler('client-click'), async () => {
      await expect(getKey('APIKEY#hash')).resolves.toBeDefined();
      await expect(query('APIKEY#hash')).rejects.toEqual(refused('dynamodb:Query', 'APIKEY#'));
      await expect(getKey('EVENTLOG#ws_1#0')).rejects.toEqual(refused('dynamodb:GetItem', 'EVENTLOG#'));
    });
    // A list route: the link list index partitions, not the key-id index's.
    await routeContext.run(routeByHandler('links-list'), async () => {
      await expect(query('ws_1#LINK#0', 'gsi1')).resolves.toBeDefined();
      await expect(query('KEYID#key_1', 'gsi1')).rejects.toEqual(refused('dynamodb:Query on index gsi1', 'KEYID#'));
    });
  });

  it('refuses event sends on routes without grants.events', async () => {
    const sent: unknown[] = [];
    const sink = guardEventSink({
      send: (events) => {
        sent.push(...events);
        return Promise.resolve();
      },
    });
    const event = blankEvent({
      eventId: 'e',
      timestamp: new Date().toISOString(),
      eventType: 'click',
      workspaceId: 'w',
      trafficType: 'human',
    });
    await routeContext.run(route({ table: 'read' }), async () => {
      await expect(sink.send([event])).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    await routeContext.run(route({ table: 'read', events: true }), () => sink.send([event]));
    expect(sent).toHaveLength(1);
  });

  it("runs the click counter consumer's stand-in under its own row's grants, not the sending route's", async () => {
    const lakeDir = await mkdtemp(path.join(tmpdir(), 'grant-guard-consumer-'));
    const outcome = async (call: () => Promise<unknown>) =>
      call().then(
        () => 'allowed',
        (error: unknown) => (error as Error).name,
      );
    const seen: Array<{ handler?: string; apiKey: string; link: string; linkPut: string; linkUpdate: string }> = [];
    try {
      const stream = createLocalEventStream(lakeDir, {
        apply: async () => {
          seen.push({
            handler: routeContext.getStore()?.handler,
            // Out of its prefixes (an API key), and a write it is not granted (PutItem of a link).
            apiKey: await outcome(() =>
              getDocumentClient().send(
                new GetCommand({ TableName: tableName(), Key: { pk: 'APIKEY#consumer', sk: 'APIKEY' } }),
              ),
            ),
            link: await outcome(get),
            linkPut: await outcome(() => put()),
            linkUpdate: await outcome(() =>
              getDocumentClient().send(
                new UpdateCommand({
                  TableName: tableName(),
                  Key: { pk: 'LINK#guard', sk: 'x' },
                  UpdateExpression: 'ADD clicks :one',
                  ExpressionAttributeValues: { ':one': 1 },
                }),
              ),
            ),
          });
        },
      });
      const sink = guardEventSink(stream);
      const event = blankEvent({
        eventId: 'consumer-e',
        timestamp: new Date().toISOString(),
        eventType: 'click',
        workspaceId: 'w',
        trafficType: 'human',
      });
      // Sent by a route that may read API keys: the consumer does not inherit that.
      await routeContext.run(route({ table: 'read', reads: ['APIKEY#', 'LINK#'], events: true }), () =>
        sink.send([event]),
      );
      await stream.drained();
      expect(seen).toEqual([
        {
          handler: clickCountersConsumer.handler,
          apiKey: 'AccessDeniedException',
          link: 'allowed',
          linkPut: 'AccessDeniedException',
          linkUpdate: 'allowed',
        },
      ]);
    } finally {
      await rm(lakeDir, { recursive: true, force: true });
    }
  });

  it('holds the compaction and the spool redrive to their rows: LINK# GetItem/UpdateItem, ERASED# GetItem', async () => {
    await routeContext.run(lakeCompactionConsumer, async () => {
      await expect(get()).resolves.toBeDefined();
      await expect(put()).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(put('WEBHOOKS#ws')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    await routeContext.run(redriveConsumer, async () => {
      await expect(
        getDocumentClient().send(
          new GetCommand({ TableName: tableName(), Key: { pk: 'ERASED#ws_guard', sk: 'ERASED' } }),
        ),
      ).resolves.toBeDefined();
      await expect(get()).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('LINK#'),
      });
    });
  });

  it('holds the outbound consumers to their rows: the delivery may only mark an endpoint disabled, the publisher only Query endpoints', async () => {
    const update = (pk: string, UpdateExpression: string, extra: Record<string, unknown> = {}) =>
      getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk, sk: 'WEBHOOK#wh_guard' },
          UpdateExpression,
          ExpressionAttributeValues: { ':f': false, ':now': 'now', ':r': 'gone' },
          ...extra,
        }),
      );
    const disable = 'SET enabled = :f, disabledAt = :now, disabledReason = :r';
    await routeContext.run(webhookDeliveryConsumer, async () => {
      await expect(update('WEBHOOKS#ws_guard', disable)).resolves.toBeDefined();
      // Not the endpoint's URL or secret; nothing returned.
      await expect(
        getDocumentClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: 'WEBHOOKS#ws_guard', sk: 'WEBHOOK#wh_guard' },
            UpdateExpression: 'SET #u = :u',
            ExpressionAttributeNames: { '#u': 'url' },
            ExpressionAttributeValues: { ':u': 'https://attacker.example' },
          }),
        ),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(update('WEBHOOKS#ws_guard', disable, { ReturnValues: 'ALL_OLD' })).rejects.toMatchObject({
        name: 'AccessDeniedException',
      });
      await expect(put('WEBHOOKSENT#wh_guard#evt_1')).resolves.toBeDefined();
      await expect(put('WEBHOOKS#ws_guard')).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(put('APIKEY#delivery')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    const queryOf = (pk: string) =>
      getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': pk },
        }),
      );
    await routeContext.run(outboundPublisherConsumer, async () => {
      await expect(queryOf('WEBHOOKS#ws_guard')).resolves.toBeDefined();
      // It writes the event log but does not read it back, nor anything else.
      await expect(queryOf('EVENTLOG#ws_guard#0')).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(put('EVENTLOG#ws_guard#0')).resolves.toBeDefined();
      await expect(put('LINK#publisher')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
  });

  it('lets a read route of a limited credential write rate-limit counters (RATE# partitions) and nothing else', async () => {
    const update = (pk: string) =>
      getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk, sk: 'RATE' },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    const limited: RouteDef = { ...route({ table: 'read' }), credential: 'server' };
    await routeContext.run(limited, async () => {
      await expect(update('RATE#ws#server#0#0')).resolves.toBeDefined();
      await expect(update('LINK#x')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
    await routeContext.run(route({ table: 'read' }), async () => {
      await expect(update('RATE#ws#server#0#0')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });
  });
});
