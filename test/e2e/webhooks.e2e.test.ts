import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { outboundEventSchemas, type OutboundEventType } from '@shared/outbound/event-catalogue';
import { addWebhookEndpoint, replayWebhookEvents, rotateWebhookSecret } from '@shared/outbound/manage-webhooks';
import { webhookEndpointRepository } from '@shared/outbound/webhook-endpoint-repository';
import { projectRoot } from '@shared/local/paths';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';
import { waitUntil } from '@test/support/wait-until';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';

let t: TestStack;
const receivers: WebhookReceiver[] = [];
const receiver = async (respond?: (n: number) => number) => {
  const r = await startWebhookReceiver(respond);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const api = (tenant: BootstrapResult) => ({
  post: (path: string, json: unknown) =>
    http(t.baseUrl, 'POST', path, { headers: { 'api-key': tenant.serverKey }, json }),
  patch: (path: string, json: unknown) =>
    http(t.baseUrl, 'PATCH', path, { headers: { 'api-key': tenant.serverKey }, json }),
  del: (path: string) => http(t.baseUrl, 'DELETE', path, { headers: { 'api-key': tenant.serverKey } }),
});

/** Every delivery a receiver got passes the Standard Webhooks verifier with `secret`. */
const verifyAll = (r: WebhookReceiver, secret: string) =>
  r.received.map(
    (d) => new Webhook(secret).verify(d.body, d.headers as Record<string, string>) as { id: string; type: string },
  );

/**
 * Waits until everything before now has gone through: a sentinel link of `tenant` reaches
 * `sentinel` (the stream is ordered), and the local queue holds nothing.
 */
const drain = async (tenant: BootstrapResult, sentinel: WebhookReceiver) => {
  const key = `sentinel-${Math.random().toString(36).slice(2, 10)}`;
  const created = await api(tenant).post('/v1/links', {
    url: 'https://example.com/sentinel',
    domain: tenant.domain,
    key,
  });
  expect(created.status).toBe(201);
  await waitUntil(
    () => sentinel.events().some((e) => e.type === 'link.created' && e.data.key === key),
    `sentinel ${key}`,
  );
  await waitUntil(() => t.stack.outbound.pendingDeliveries() === 0, 'an empty delivery queue');
};

const ofType = (r: WebhookReceiver, type: OutboundEventType) => r.events().filter((e) => e.type === type);

describe('webhooks: the link lifecycle, attribution and customer events, signed', () => {
  let tenant: BootstrapResult;
  let hook: WebhookReceiver;
  let secret: string;
  let linkId: string;
  let created: any;

  beforeAll(async () => {
    tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Hooks' });
    hook = await receiver();
    ({ secret } = await addWebhookEndpoint(tenant.workspaceId, hook.url, [
      'link.created',
      'link.updated',
      'link.archived',
      'link.restored',
      'attribution.first_open',
      'attribution.install',
      'customer_event.received',
    ]));
    const res = await api(tenant).post('/v1/links', {
      url: 'https://example.com/a',
      domain: tenant.domain,
      key: 'lifecycle',
    });
    expect(res.status).toBe(201);
    created = res.body.data;
    linkId = created.id;
    expect((await api(tenant).patch(`/v1/links/${linkId}`, { title: 'Renamed' })).status).toBe(200);
    expect((await api(tenant).del(`/v1/links/${linkId}`)).status).toBe(200);
    expect((await api(tenant).patch(`/v1/links/${linkId}`, { archived: false })).status).toBe(200);
    const client = {
      'x-publishable-key': tenant.publishableKeys.ios.key,
      'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
      'user-agent': IPHONE,
    };
    const open = await http(t.baseUrl, 'POST', '/v1/client/first-open', {
      headers: client,
      json: { installId: 'install-1', linkId },
    });
    expect(open.status).toBe(201);
    const events = await http(t.baseUrl, 'POST', '/v1/client/events', {
      headers: client,
      json: { events: [{ name: 'purchase', eventId: 'order-1', linkId, properties: { amount: 42 } }] },
    });
    expect(events.status).toBe(202);
    // A failed create (the slug is taken) changes nothing and so announces nothing.
    expect(
      (await api(tenant).post('/v1/links', { url: 'https://example.com/b', domain: tenant.domain, key: 'lifecycle' }))
        .status,
    ).toBe(409);
    await drain(tenant, hook);
  });

  it('delivers each change once, signed so that the Standard Webhooks verifier accepts it', () => {
    const verified = verifyAll(hook, secret);
    expect(verified.length).toBe(hook.received.length);
    for (const type of [
      'link.updated',
      'link.archived',
      'link.restored',
      'attribution.first_open',
      'customer_event.received',
    ] as const) {
      expect(ofType(hook, type).length, type).toBe(1);
    }
    // link.created: the lifecycle link and the sentinel; the failed create sent nothing.
    expect(ofType(hook, 'link.created').filter((e) => e.data.key === 'lifecycle')).toHaveLength(1);
    expect(new Set(hook.received.map((d) => d.headers['webhook-id'])).size).toBe(hook.received.length);
  });

  it('carries the envelope of the catalogue, webhook-id = event id, and the Link resource as the API returns it', () => {
    for (const event of hook.events()) {
      const schema = outboundEventSchemas[event.type as OutboundEventType];
      expect(schema.safeParse(event).success, event.type).toBe(true);
      expect(event.workspaceId).toBe(tenant.workspaceId);
    }
    for (const d of hook.received) expect(d.headers['webhook-id']).toBe(JSON.parse(d.body).id);
    expect(ofType(hook, 'link.created').find((e) => e.data.key === 'lifecycle')!.data).toEqual(created);
    expect(ofType(hook, 'link.updated')[0]!.data).toMatchObject({ id: linkId, title: 'Renamed', archived: false });
    expect(ofType(hook, 'link.archived')[0]!.data).toMatchObject({ id: linkId, archived: true });
    expect(ofType(hook, 'link.restored')[0]!.data).toMatchObject({ id: linkId, archived: false });
  });

  it('attribution and customer events carry what the client API recorded, never an IP or a key', () => {
    const open = ofType(hook, 'attribution.first_open')[0]!;
    expect(open.data).toMatchObject({ installId: 'install-1', eventType: 'first_open', linkId });
    const purchase = ofType(hook, 'customer_event.received')[0]!;
    expect(purchase.data).toMatchObject({ eventId: 'order-1', name: 'purchase', linkId, properties: { amount: 42 } });
    const text = hook.received.map((d) => d.body).join('\n');
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(tenant.publishableKeys.ios.key);
    expect(text).not.toContain(tenant.serverKey);
    expect(text).not.toMatch(/"visitorId"|"ip"/);
  });

  it('puts every event on the bus (source, detail-type = type), link.clicked excepted unless asked for', () => {
    const onBus = t.stack.outbound.busEvents.filter((e) => e.workspaceId === tenant.workspaceId);
    for (const event of hook.events()) expect(onBus.some((b) => b.id === event.id)).toBe(true);
    expect(onBus.some((e) => e.type === 'link.clicked')).toBe(false);
  });

  it('a repeated first open and a repeated customer event send nothing new', async () => {
    const client = {
      'x-publishable-key': tenant.publishableKeys.ios.key,
      'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
      'user-agent': IPHONE,
    };
    await http(t.baseUrl, 'POST', '/v1/client/first-open', {
      headers: client,
      json: { installId: 'install-1', linkId },
    });
    await http(t.baseUrl, 'POST', '/v1/client/events', {
      headers: client,
      json: { events: [{ name: 'purchase', eventId: 'order-1' }] },
    });
    await drain(tenant, hook);
    expect(ofType(hook, 'attribution.first_open')).toHaveLength(1);
    expect(ofType(hook, 'customer_event.received')).toHaveLength(1);
  });

  it('replay re-sends logged events with their original ids', async () => {
    const before = hook.events().filter((e) => e.type === 'link.updated');
    const since = new Date(Date.now() - 3600_000).toISOString();
    const endpoint = (await webhookEndpointRepository.listByWorkspace(tenant.workspaceId))[0]!;
    const result = await replayWebhookEvents(endpoint.id, since);
    expect(result.replayed).toBeGreaterThanOrEqual(6);
    await waitUntil(() => ofType(hook, 'link.updated').length === 2, 'the replayed link.updated');
    const again = ofType(hook, 'link.updated');
    expect(again[1]!.id).toBe(before[0]!.id);
  });
});

describe('webhooks: retries, tenants, rotation, 410, clicks', () => {
  it('a receiver failing three times gets the same event (same webhook-id) on every attempt, then nothing more', async () => {
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Flaky' });
    const flaky = await receiver((n) => (n <= 3 ? 503 : 200));
    const { secret } = await addWebhookEndpoint(tenant.workspaceId, flaky.url, ['link.created']);
    expect(
      (await api(tenant).post('/v1/links', { url: 'https://example.com/flaky', domain: tenant.domain, key: 'flaky' }))
        .status,
    ).toBe(201);
    await waitUntil(() => flaky.received.some((d) => d.status === 200), 'a successful attempt');
    await waitUntil(() => t.stack.outbound.pendingDeliveries() === 0, 'an empty delivery queue');
    await drain(tenant, flaky);
    const attempts = flaky.received.filter((d) => JSON.parse(d.body).data.key === 'flaky');
    expect(attempts.map((d) => d.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(attempts.map((d) => d.headers['webhook-id'])).size).toBe(1);
    for (const d of attempts)
      expect(() => new Webhook(secret).verify(d.body, d.headers as Record<string, string>)).not.toThrow();
    expect(t.stack.outbound.deadLetters).toHaveLength(0);
  });

  it("a workspace never receives another workspace's events", async () => {
    const [a, b] = [t.tenantA, t.tenantB];
    const hookA = await receiver();
    const hookB = await receiver();
    await addWebhookEndpoint(a.workspaceId, hookA.url, ['link.created', 'link.updated']);
    await addWebhookEndpoint(b.workspaceId, hookB.url, ['link.created', 'link.updated']);
    expect((await api(a).post('/v1/links', { url: 'https://example.com/a1', domain: a.domain })).status).toBe(201);
    expect((await api(b).post('/v1/links', { url: 'https://example.com/b1', domain: b.domain })).status).toBe(201);
    await drain(a, hookA);
    await drain(b, hookB);
    expect(hookA.events().length).toBeGreaterThanOrEqual(2);
    expect(hookB.events().length).toBeGreaterThanOrEqual(2);
    expect(hookA.events().every((e) => e.workspaceId === a.workspaceId && e.data.domain === a.domain)).toBe(true);
    expect(hookB.events().every((e) => e.workspaceId === b.workspaceId && e.data.domain === b.domain)).toBe(true);
  });

  it('after rotate-secret, deliveries verify with both the old and the new secret', async () => {
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Rotate' });
    const hook = await receiver();
    const { id, secret: old } = await addWebhookEndpoint(tenant.workspaceId, hook.url, ['link.created']);
    const { secret: fresh } = await rotateWebhookSecret(id);
    expect(fresh).not.toBe(old);
    await drain(tenant, hook);
    const last = hook.received.at(-1)!;
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(fresh).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
  });

  it('an endpoint answering 410 Gone is disabled and gets nothing more', async () => {
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Gone' });
    const gone = await receiver(() => 410);
    const { id } = await addWebhookEndpoint(tenant.workspaceId, gone.url, ['link.created']);
    expect((await api(tenant).post('/v1/links', { url: 'https://example.com/g', domain: tenant.domain })).status).toBe(
      201,
    );
    await waitUntil(
      async () => (await webhookEndpointRepository.findById(id))?.enabled === false,
      'the endpoint disabled',
    );
    expect((await webhookEndpointRepository.findById(id))!.disabledReason).toContain('410');
    const sentinel = await receiver();
    await addWebhookEndpoint(tenant.workspaceId, sentinel.url, ['link.created']);
    await drain(tenant, sentinel);
    expect(gone.received).toHaveLength(1);
  });

  it('link.clicked is off by default; an endpoint that lists it gets the clicks', async () => {
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Clicks' });
    const byDefault = await receiver();
    const clicks = await receiver();
    await addWebhookEndpoint(
      tenant.workspaceId,
      byDefault.url,
      (await import('@shared/outbound/event-catalogue')).defaultSubscribedTypes,
    );
    const { secret } = await addWebhookEndpoint(tenant.workspaceId, clicks.url, ['link.clicked', 'link.created']);
    expect(
      (await api(tenant).post('/v1/links', { url: 'https://example.com/c', domain: tenant.domain, key: 'clicky' }))
        .status,
    ).toBe(201);
    const click = await edgeRequest(t.edgeUrl, {
      host: tenant.domain,
      path: '/clicky',
      headers: { 'user-agent': IPHONE },
    });
    expect(click.status).toBe(302);
    await waitUntil(() => clicks.events().some((e) => e.type === 'link.clicked'), 'link.clicked');
    await drain(tenant, byDefault);
    const clicked = clicks.events().find((e) => e.type === 'link.clicked')!;
    expect(clicked.data).toMatchObject({ key: 'clicky', clicks: 1 });
    expect(() => verifyAll(clicks, secret)).not.toThrow();
    expect(byDefault.events().some((e) => e.type === 'link.clicked')).toBe(false);
  });
});

describe('admin webhooks commands', () => {
  const run = promisify(execFile);
  const admin = async (stateDir: string, ...args: string[]) =>
    run(path.join(projectRoot, 'node_modules/.bin/tsx'), [path.join(projectRoot, 'scripts/admin.ts'), ...args], {
      cwd: projectRoot,
      env: { ...process.env, TABLE_NAME: '', LOCAL_STATE_DIR: stateDir },
    });

  it('add --json prints the id and a whsec_ secret once; list never shows it; a loopback URL reaches the running stack', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'linkservice-admin-'));
    writeFileSync(
      path.join(stateDir, 'stack.json'),
      JSON.stringify({ ...t.stack, outbound: undefined, dynamo: undefined }),
    );
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Cli' });
    const hook = await receiver();
    const added = JSON.parse(
      (
        await admin(
          stateDir,
          'webhooks',
          'add',
          tenant.workspaceId,
          '--url',
          hook.url,
          '--events',
          'link.created',
          '--json',
        )
      ).stdout,
    );
    expect(added).toEqual({
      id: expect.stringMatching(/^wh_/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    const listed = (await admin(stateDir, 'webhooks', 'list', tenant.workspaceId, '--json')).stdout;
    expect(JSON.parse(listed)).toEqual([
      expect.objectContaining({ id: added.id, url: hook.url, events: ['link.created'], enabled: true }),
    ]);
    expect(listed).not.toContain('whsec_');
    await drain(tenant, hook);
    expect(() => verifyAll(hook, added.secret)).not.toThrow();
    await expect(
      admin(stateDir, 'webhooks', 'add', tenant.workspaceId, '--url', 'http://10.0.0.1/x', '--json'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/https|127\.0\.0\.1/) });
    const removed = JSON.parse((await admin(stateDir, 'webhooks', 'remove', added.id, '--json')).stdout);
    expect(removed).toEqual({ id: added.id, removed: true });
  });
});
