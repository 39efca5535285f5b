import SwaggerParser from '@apidevtools/swagger-parser';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';
import { outboundEventId } from '@shared/outbound/event-builders';
import { defaultSubscribedTypes, eventComponentName, outboundEventTypes } from '@shared/outbound/event-catalogue';
import { parseEventTypes, WebhookAdminError } from '@shared/outbound/manage-webhooks';
import { deployedRetryDelaysMs, MAX_DELIVERY_ATTEMPTS } from '@shared/outbound/retry-schedule';
import { streamWorkOf } from '@shared/outbound/stream-events';
import { newWebhookSecret } from '@shared/outbound/webhook-secret';
import { signedHeaders } from '@shared/outbound/webhook-signer';
import { checkWebhookUrl, isNonPublicAddress } from '@shared/outbound/webhook-url';
import { provideServices, resetServices } from '@shared/runtime/services';

afterEach(() => {
  resetServices('loopbackWebhooks');
});

describe('webhook URL policy (SSRF)', () => {
  it('deployed: https only, never loopback, private, link-local or reserved addresses', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x').hostname).toBe('hooks.example.com');
    for (const url of [
      'http://hooks.example.com/x',
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/',
      'https://[fe80::1]/',
      'https://[fd00::1]/',
      'https://[::ffff:169.254.169.254]/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'ftp://example.com/',
      'https://user:pw@example.com/',
      'not a url',
      'https://app.localhost/',
    ]) {
      expect(() => checkWebhookUrl(url), url).toThrow();
    }
  });

  it('the local stack also allows http://127.0.0.1 and http://localhost, and nothing else private', () => {
    provideServices({ loopbackWebhooks: true });
    expect(checkWebhookUrl('http://127.0.0.1:4000/hooks').port).toBe('4000');
    expect(checkWebhookUrl('http://localhost:4000/hooks').hostname).toBe('localhost');
    expect(() => checkWebhookUrl('http://10.0.0.1/x')).toThrow();
    expect(() => checkWebhookUrl('https://192.168.0.10/x')).toThrow();
    expect(() => checkWebhookUrl('http://example.com/x')).toThrow();
  });

  it('classifies addresses, IPv4 inside IPv6 included', () => {
    for (const ip of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
      expect(isNonPublicAddress(ip), ip).toBe(false);
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '224.0.0.1',
    ]) {
      expect(isNonPublicAddress(ip), ip).toBe(true);
    }
  });
});

describe('signing (Standard Webhooks)', () => {
  it('signs so that the standardwebhooks verifier accepts it; two secrets give two signatures, each verifying', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const payload = JSON.stringify({ id: 'evt_1', type: 'link.created' });
    const headers = signedHeaders('evt_1', new Date(), payload, [a, b]);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(new Webhook(b).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(() => new Webhook(newWebhookSecret()).verify(payload, headers)).toThrow();
    expect(() => new Webhook(a).verify(payload.replace('created', 'updated'), headers)).toThrow();
  });
});

describe('retries', () => {
  it('back off exponentially for at least 24 hours before the dead-letter queue', () => {
    const total = deployedRetryDelaysMs.reduce((x, y) => x + y, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600e3);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(deployedRetryDelaysMs.length + 1);
    for (let i = 1; i < deployedRetryDelaysMs.length; i++)
      expect(deployedRetryDelaysMs[i]!).toBeGreaterThanOrEqual(deployedRetryDelaysMs[i - 1]!);
  });
});

const linkItem = (over: Record<string, unknown> = {}) => ({
  pk: 'LINK#lnk_1',
  sk: 'LINK',
  type: 'LINK',
  id: 'lnk_1',
  workspaceId: 'ws_1',
  linkType: 'SHORTLINK',
  domainId: 'dom_1',
  domain: 'go.example.com',
  key: 'k',
  url: 'https://example.com',
  title: '',
  desktopOverrideUrl: null,
  androidOverrideUrl: null,
  iosOverrideUrl: null,
  expiresAt: null,
  expiredUrl: null,
  passwordHash: 'secret-hash',
  comments: null,
  objects: null,
  tags: [],
  tracking: null,
  socialPreview: null,
  deepLinkAppId: null,
  archived: false,
  clicks: 0,
  botClicks: 0,
  lastClicked: null,
  lastBotClickedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', newImage?: object, oldImage?: object): DynamoDBRecord =>
  ({
    eventID: 'rec-1',
    eventName,
    dynamodb: {
      NewImage: newImage ? marshall(newImage, { removeUndefinedValues: true }) : undefined,
      OldImage: oldImage ? marshall(oldImage, { removeUndefinedValues: true }) : undefined,
      SequenceNumber: '1',
    },
  }) as unknown as DynamoDBRecord;

describe('link changes from the table stream', () => {
  it('INSERT is link.created; the Link resource never carries the password hash', () => {
    const work = streamWorkOf(record('INSERT', linkItem()));
    expect(work).toMatchObject({
      kind: 'publish',
      event: { type: 'link.created', workspaceId: 'ws_1', occurredAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(work!.event.data).toMatchObject({
      id: 'lnk_1',
      passwordProtected: true,
      shortLink: 'https://go.example.com/k',
    });
    expect(JSON.stringify(work)).not.toContain('secret-hash');
    expect(work!.event.id).toBe(outboundEventId('link.created', 'ws_1', 'rec-1'));
  });

  it('MODIFY: archived / restored / updated / clicked by what changed; nothing for no visible change; REMOVE is nothing', () => {
    const t2 = '2026-01-02T00:00:00.000Z';
    expect(streamWorkOf(record('MODIFY', linkItem({ archived: true, updatedAt: t2 }), linkItem()))?.event.type).toBe(
      'link.archived',
    );
    expect(streamWorkOf(record('MODIFY', linkItem({ updatedAt: t2 }), linkItem({ archived: true })))?.event.type).toBe(
      'link.restored',
    );
    expect(streamWorkOf(record('MODIFY', linkItem({ title: 'x', updatedAt: t2 }), linkItem()))?.event.type).toBe(
      'link.updated',
    );
    expect(streamWorkOf(record('MODIFY', linkItem({ clicks: 1, lastClicked: t2 }), linkItem()))?.event).toMatchObject({
      type: 'link.clicked',
      occurredAt: t2,
    });
    expect(streamWorkOf(record('MODIFY', linkItem(), linkItem()))).toBeUndefined();
    expect(streamWorkOf(record('REMOVE', undefined, linkItem()))).toBeUndefined();
  });

  it('the same stream record always gives the same event id; other items are ignored', () => {
    const a = streamWorkOf(record('INSERT', linkItem()));
    const b = streamWorkOf(record('INSERT', linkItem()));
    expect(a!.event.id).toBe(b!.event.id);
    expect(streamWorkOf(record('INSERT', { pk: 'SLUG#x', sk: 'SLUG' }))).toBeUndefined();
  });
});

describe('event types of an endpoint', () => {
  it('default to everything but link.clicked; unknown names are refused', () => {
    expect(parseEventTypes(undefined)).toEqual(defaultSubscribedTypes);
    expect(defaultSubscribedTypes).not.toContain('link.clicked');
    expect(parseEventTypes('link.created, link.clicked')).toEqual(['link.created', 'link.clicked']);
    expect(() => parseEventTypes('link.deleted')).toThrow(WebhookAdminError);
    expect(() => parseEventTypes(',')).toThrow(WebhookAdminError);
  });
});

describe('OpenAPI', () => {
  it("lists every event's JSON Schema as a component and as an OpenAPI 3.1 webhook, and stays valid", async () => {
    const doc = buildOpenApiDocument();
    for (const type of outboundEventTypes) {
      const schema = (doc.components.schemas as Record<string, any>)[eventComponentName(type)];
      expect(schema, type).toBeDefined();
      expect(schema.required).toEqual(['id', 'type', 'occurredAt', 'workspaceId', 'data']);
      expect(schema.properties.type).toMatchObject({ const: type });
      expect((doc.webhooks as Record<string, any>)[type].post.requestBody.content['application/json'].schema).toEqual({
        $ref: `#/components/schemas/${eventComponentName(type)}`,
      });
    }
    expect((doc.components.schemas as Record<string, any>).LinkCreatedEvent.properties.data).toEqual({
      $ref: '#/components/schemas/Link',
    });
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });
});
