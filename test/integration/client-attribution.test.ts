import { drainEventStream } from '@shared/events/local-event-stream';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { rawPartitionPath, shardOf } from '@shared/analytics/lake/lake-layout';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import type { AuthContext } from '@shared/auth/credential';
import { recordClientClick } from '@shared/attribution/client-click';
import type { ClientRequestInfo } from '@shared/attribution/client-request';
import { firstOpenBodySchema, type FirstOpenBody } from '@shared/attribution/client-schemas';
import { recordCustomerEvents } from '@shared/attribution/customer-events';
import { findDeferredDeepLink } from '@shared/attribution/deferred-deep-link';
import { recordFirstOpen } from '@shared/attribution/first-open';
import { parseUserAgent } from '@shared/clicks/user-agent';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { getEventSink, type EventSink } from '@shared/events/event-sink';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { readLake } from '@test/support/lake-reader';
import { TEST_ORIGIN } from '@test/support/test-origin';
import { provideServices } from '@shared/runtime/services';

const IPHONE_17 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const IPHONE_16 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
const ANDROID_APP = 'Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UD1A.230803.041)';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const HOUR = 3600_000;

let tenant: BootstrapResult;
let other: BootstrapResult;
let auth: AuthContext;
let ipCounter = 0;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' }),
    bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' }),
  ]);
  auth = {
    kind: 'publishable',
    workspaceId: tenant.workspaceId,
    appId: null,
    publishable: null,
    keyId: 'key_test',
    keyName: null,
  };
});

/** A fresh client IP per scenario, so that fingerprints of different tests never meet. */
const newIp = () => `198.51.100.${++ipCounter}`;
const device = (ip: string, userAgent = IPHONE_17): ClientRequestInfo => ({
  ip,
  country: null,
  destinationCountry: null,
  userAgent,
  referrer: null,
  acceptLanguage: null,
  client: parseUserAgent(userAgent),
});
const open = (body: Partial<FirstOpenBody>) => firstOpenBodySchema.parse(body);
const newLink = (workspaceId = tenant.workspaceId, domain = tenant.domain, extra: { expiresAt?: string } = {}) =>
  createShortLink(workspaceId, { url: 'https://example.com/landing', domain, ...extra }, TEST_ORIGIN);

describe('client click', () => {
  it('keeps an attribution record for 7 days (TTL) and no raw IP', async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-01T10:00:00.000Z');
    const click = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), t0);
    expect(click).toMatchObject({
      eligible: true,
      installId: null,
      expiresAt: '2026-02-08T10:00:00.000Z',
      deferredDeepLink: { linkId: link.id, url: link.url },
    });
    const stored = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.attribution(click.attributionId) }),
    );
    expect(stored.Item).toMatchObject({ clickId: click.clickId, ttl: Date.parse('2026-02-08T10:00:00.000Z') / 1000 });
    expect(JSON.stringify(stored.Item)).not.toContain(ip);
  });

  it('is not eligible for a bot, an expired link or an archived link (no match later), but is still counted', async () => {
    const link = await newLink(undefined, undefined, { expiresAt: '2026-03-01T00:00:00.000Z' });
    const ip = newIp();
    const before = new Date('2026-02-01T10:00:00.000Z');
    const bot = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip, GOOGLEBOT), before);
    expect(bot).toMatchObject({ eligible: false, deferredDeepLink: null });
    const expired = await recordClientClick(
      tenant.workspaceId,
      { linkId: link.id },
      device(ip),
      new Date('2026-03-01T00:00:00.000Z'),
    );
    expect(expired.eligible).toBe(false);
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(link.id),
        UpdateExpression: 'SET archived = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    const archived = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), before);
    expect(archived.eligible).toBe(false);
    expect(
      await findDeferredDeepLink(auth, open({ attributionId: archived.attributionId }), device(newIp()), before),
    ).toEqual({ matched: false, matchType: null, matchGuaranteed: false, deferredDeepLink: null });
    await drainEventStream(getEventSink()); // the event stream's consumer moves the counters
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 2, botClicks: 1 });
  });
});

describe('matching (deterministic ids, then fingerprint)', () => {
  it("matches deterministically by attributionId, then clickId; another workspace's ids never match", async () => {
    const link = await newLink();
    const t0 = new Date('2026-02-02T10:00:00.000Z');
    const click = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(newIp()), t0);
    const later = new Date(t0.getTime() + 5 * 24 * HOUR); // far outside the probabilistic window
    const elsewhere = device(newIp());
    expect(
      await findDeferredDeepLink(auth, open({ attributionId: click.attributionId }), elsewhere, later),
    ).toMatchObject({ matched: true, matchType: 'deterministic', deferredDeepLink: { linkId: link.id } });
    expect(
      await findDeferredDeepLink(auth, open({ attributionId: 'nope', clickId: click.clickId }), elsewhere, later),
    ).toMatchObject({ matched: true, matchType: 'deterministic' });
    const otherAuth = { ...auth, workspaceId: other.workspaceId };
    expect(
      await findDeferredDeepLink(
        otherAuth,
        open({ attributionId: click.attributionId, clickId: click.clickId }),
        elsewhere,
        later,
      ),
    ).toEqual({ matched: false, matchType: null, matchGuaranteed: false, deferredDeepLink: null });
    // After the 7 days the record no longer matches, even before TTL removes it.
    expect(
      (
        await findDeferredDeepLink(
          auth,
          open({ attributionId: click.attributionId }),
          elsewhere,
          new Date(t0.getTime() + 7 * 24 * HOUR),
        )
      ).matched,
    ).toBe(false);
  });

  it('matches probabilistically on IP + platform (not the OS version) within 2 hours after the click, edges included', async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-03T10:00:00.000Z');
    await recordClientClick(tenant.workspaceId, { shortLink: `https://${link.domain}/${link.key}` }, device(ip), t0);
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const deferred = (ms: number, d = device(ip)) => findDeferredDeepLink(auth, open({}), d, at(ms));
    expect(await deferred(0)).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
      deferredDeepLink: { linkId: link.id },
    });
    expect((await deferred(2 * HOUR)).matched).toBe(true);
    expect((await deferred(2 * HOUR + 1)).matched).toBe(false);
    expect((await deferred(-1)).matched).toBe(false);
    expect((await deferred(HOUR, device(newIp()))).matched).toBe(false);
    // Browsers freeze the OS version and apps report the real one: it is not part of the fingerprint.
    expect((await deferred(HOUR, device(ip, IPHONE_16))).matched).toBe(true);
    expect((await deferred(HOUR, device(ip, ANDROID_APP))).matched).toBe(false);
  });

  it('matches IPv6 clients by their /64 prefix (phones rotate temporary addresses between browser and app)', async () => {
    const link = await newLink();
    const prefix = `2001:db8:${(++ipCounter).toString(16)}:42`;
    const t0 = new Date('2026-02-03T12:00:00.000Z');
    await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(`${prefix}:a1b2:c3d4:e5f6:1`), t0);
    const at = new Date(t0.getTime() + 60_000);
    const lookup = (ip: string) => findDeferredDeepLink(auth, open({}), device(ip), at);
    expect(await lookup(`${prefix}:9999::2`)).toMatchObject({
      matched: true,
      matchType: 'probabilistic',
      deferredDeepLink: { linkId: link.id },
    });
    expect(await lookup(`${prefix.toUpperCase()}:0:0:0:7`)).toMatchObject({ matched: true });
    expect((await lookup(`2001:db8:${(++ipCounter).toString(16)}:43::1`)).matched).toBe(false);
  });

  it('claims a probabilistic match for one install: concurrent installs behind one IP never share a click', async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-03T14:00:00.000Z');
    await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), t0);
    const at = new Date(t0.getTime() + 60_000);
    const opens = await Promise.all(
      [1, 2, 3, 4].map((n) => recordFirstOpen(auth, open({ installId: `claim-${ip}-${n}` }), device(ip), at)),
    );
    expect(opens.filter((o) => o.matched)).toHaveLength(1);
    // deferred-deep-link with the winner's installId agrees; a peek without one sees nothing left.
    const winner = opens.findIndex((o) => o.matched) + 1;
    expect(
      await findDeferredDeepLink(auth, open({ installId: `claim-${ip}-${winner}` }), device(ip), at),
    ).toMatchObject({ matched: true, matchType: 'probabilistic' });
    expect((await findDeferredDeepLink(auth, open({}), device(ip), at)).matched).toBe(false);
  });

  it('a click taken deterministically is not handed to another install probabilistically', async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-03T16:00:00.000Z');
    const click = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), t0);
    const at = new Date(t0.getTime() + 60_000);
    expect(
      await recordFirstOpen(auth, open({ installId: `det-${ip}`, clickId: click.clickId }), device(ip), at),
    ).toMatchObject({ matchType: 'deterministic', matchGuaranteed: true });
    expect((await recordFirstOpen(auth, open({ installId: `prob-${ip}` }), device(ip), at)).matched).toBe(false);
  });

  it('takes the newest click when several fit, and only clicks on the named link when the request names one', async () => {
    const [first, second] = await Promise.all([newLink(), newLink()]);
    const ip = newIp();
    const t0 = new Date('2026-02-04T10:00:00.000Z');
    await recordClientClick(tenant.workspaceId, { linkId: first.id }, device(ip), t0);
    await recordClientClick(
      tenant.workspaceId,
      { domain: second.domain, slug: second.key },
      device(ip),
      new Date(t0.getTime() + 10 * 60_000),
    );
    const at = new Date(t0.getTime() + 30 * 60_000);
    expect((await findDeferredDeepLink(auth, open({}), device(ip), at)).deferredDeepLink?.linkId).toBe(second.id);
    expect(
      (await findDeferredDeepLink(auth, open({ linkId: first.id }), device(ip), at)).deferredDeepLink?.linkId,
    ).toBe(first.id);
  });

  it("uses the key's platform for app keys: an iOS app matches a click from Safari on the same iPhone", async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-05T10:00:00.000Z');
    await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), t0);
    const iosKey = {
      ...auth,
      publishable: {
        environment: 'production',
        platform: 'ios' as const,
        origins: [],
        androidPackage: null,
        androidSha256Certs: [],
        iosBundleId: 'x',
      },
    };
    const appUa = 'DemoApp/1.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X)';
    expect(
      await findDeferredDeepLink(iosKey, open({}), device(ip, appUa), new Date(t0.getTime() + 60_000)),
    ).toMatchObject({ matched: true, matchType: 'probabilistic' });
  });
});

describe('first open', () => {
  it('records first_open or install once per installId; a repeat returns the same openId and match', async () => {
    const link = await newLink();
    const ip = newIp();
    const t0 = new Date('2026-02-06T10:00:00.000Z');
    const click = await recordClientClick(tenant.workspaceId, { linkId: link.id }, device(ip), t0);
    const installId = `inst-${ip}`;
    const at = new Date(t0.getTime() + 60_000);
    const firstTime = await recordFirstOpen(
      auth,
      open({ installId, eventType: 'install', sessionId: 'sess-1' }),
      device(ip),
      at,
    );
    expect(firstTime).toEqual({
      openId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: click.deferredDeepLink,
    });
    const repeats = await Promise.all(
      [1, 2, 3].map(() =>
        recordFirstOpen(auth, open({ installId, clickId: 'other' }), device(newIp()), new Date(at.getTime() + HOUR)),
      ),
    );
    for (const r of repeats) expect(r).toEqual(firstTime);
    const events = readLake().filter((e) => e.line.installId === installId);
    expect(events).toHaveLength(1);
    expect(events[0]!.line).toMatchObject({
      eventId: firstTime.openId,
      eventType: 'install',
      linkId: link.id,
      clickId: click.clickId,
      attributionId: click.attributionId,
      sessionId: 'sess-1',
      responseKind: 'api',
    });
    expect(events[0]!.dir).toBe(rawPartitionPath({ shard: shardOf(tenant.workspaceId), dt: '2026-02-06', hour: '10' }));
    // deferred-deep-link for an opened install answers that open's match, and records nothing.
    const lakeSize = readLake().length;
    expect(await findDeferredDeepLink(auth, open({ installId }), device(newIp()), at)).toEqual({
      matched: true,
      matchType: 'probabilistic',
      matchGuaranteed: false,
      deferredDeepLink: click.deferredDeepLink,
    });
    expect(readLake()).toHaveLength(lakeSize);
  });

  it('keeps an open whose event could not be sent and sends that event (same eventId) on the repeat', async () => {
    const installId = `inst-retry-${newIp()}`;
    const real = getEventSink();
    const failing: EventSink = { send: async () => Promise.reject(new Error('sink down')) };
    provideServices({ eventSink: failing });
    await expect(recordFirstOpen(auth, open({ installId }), device(newIp()), new Date())).rejects.toThrow('sink down');
    provideServices({ eventSink: real });
    const retried = await recordFirstOpen(auth, open({ installId }), device(newIp()), new Date());
    expect(retried).toMatchObject({ matched: false, matchType: null, matchGuaranteed: false, deferredDeepLink: null });
    const events = readLake().filter((e) => e.line.installId === installId);
    expect(events.map((e) => [e.line.eventId, e.line.eventType])).toEqual([[retried.openId, 'first_open']]);
    await recordFirstOpen(auth, open({ installId }), device(newIp()), new Date());
    expect(readLake().filter((e) => e.line.installId === installId)).toHaveLength(1);
  });
});

describe('customer events', () => {
  it('queues each event once per eventId for 7 days, within one request and across requests', async () => {
    const link = await newLink();
    const at = new Date('2026-02-07T10:00:00.000Z');
    const id = `evt-${newIp()}`;
    const first = await recordCustomerEvents(
      tenant.workspaceId,
      {
        events: [
          {
            name: 'purchase',
            eventId: id,
            linkId: link.id,
            properties: { amount: 9.99, currency: 'EUR', first: true },
          },
          { name: 'purchase', eventId: id },
          { name: 'signup' },
        ],
      },
      device(newIp()),
      at,
    );
    expect(first.map((r) => r.status)).toEqual(['queued', 'duplicate', 'queued']);
    expect(first[0]!.eventId).toBe(id);
    expect(first[2]!.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (
        await recordCustomerEvents(
          tenant.workspaceId,
          { events: [{ name: 'purchase', eventId: id }] },
          device(newIp()),
          new Date(at.getTime() + 7 * 24 * HOUR - 1000),
        )
      )[0]!.status,
    ).toBe('duplicate');
    // The same id in another workspace is another event.
    expect(
      (
        await recordCustomerEvents(
          other.workspaceId,
          { events: [{ name: 'purchase', eventId: id }] },
          device(newIp()),
          at,
        )
      )[0]!.status,
    ).toBe('queued');
    // After 7 days the id is free again, even if TTL has not removed the claim yet.
    expect(
      (
        await recordCustomerEvents(
          tenant.workspaceId,
          { events: [{ name: 'purchase', eventId: id }] },
          device(newIp()),
          new Date(at.getTime() + 7 * 24 * HOUR + 1000),
        )
      )[0]!.status,
    ).toBe('queued');

    const lines = readLake().filter((e) => e.line.eventId === id && e.line.workspaceId === tenant.workspaceId);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.line).toMatchObject({
      eventType: 'customer_event',
      sdkEventName: 'purchase',
      linkId: link.id,
      linkKey: link.key,
    });
    expect(JSON.parse(lines[0]!.line.properties)).toEqual({ amount: 9.99, currency: 'EUR', first: true });
  });

  it('refuses links of another workspace, and gives claims back when the sink fails', async () => {
    const foreign = await newLink(other.workspaceId, other.domain);
    await expect(
      recordCustomerEvents(
        tenant.workspaceId,
        { events: [{ name: 'a' }, { name: 'b', linkId: foreign.id }] },
        device(newIp()),
      ),
    ).rejects.toMatchObject({
      code: 'not_found',
      details: [{ path: 'events.1.linkId', message: 'no such link' }],
    });
    const id = `evt-fail-${newIp()}`;
    const real = getEventSink();
    provideServices({ eventSink: { send: async () => Promise.reject(new Error('sink down')) } });
    await expect(
      recordCustomerEvents(tenant.workspaceId, { events: [{ name: 'a', eventId: id }] }, device(newIp())),
    ).rejects.toThrow('sink down');
    provideServices({ eventSink: real });
    expect(
      (await recordCustomerEvents(tenant.workspaceId, { events: [{ name: 'a', eventId: id }] }, device(newIp())))[0]!
        .status,
    ).toBe('queued');
  });
});
