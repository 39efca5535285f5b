import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { webScript } from '@bench/sdk-size';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import { signClickToken, readClickToken } from '@shared/conversions/click-token';
import { clearConversionSettingsCache, conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import { clearHostCache } from '@shared/edge/host-resolver';
import type { EventRecord } from '@shared/events/event-record';
import { runAdminJson } from '@test/support/admin-cli';
import { CHROMIUM_ARGS, launchChromium, requireChromium } from '@test/support/chromium';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

// No Chromium, no browser tests: the file fails at once with the line that says how to install it.
requireChromium();
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const COOKIE = 'ls_click';

let t: TestStack;
let landing: Server | undefined;
let landingUrl: string;
let script: string;
let browserKey: string;
const userDataDirs: string[] = [];
const contexts: BrowserContext[] = [];

/**
 * The customer's site: `/signup` loads the web script with the test's browser key (`?consent=required`:
 * in consent mode), `/next` is a page to leave to.
 */
const landingPage = (url: URL): string => {
  const consent = url.searchParams.get('consent') === 'required' ? ' data-consent="required"' : '';
  return `<!doctype html><title>Sign up</title><h1>Sign up</h1>
<script src="/linkservice-web.min.js" data-publishable-key="${browserKey}" data-api-url="${t.baseUrl}"${consent}></script>`;
};

beforeAll(async () => {
  t = await startTestStack();
  script = await webScript();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://landing');
    if (url.pathname === '/linkservice-web.min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(url.pathname === '/signup' ? landingPage(url) : '<!doctype html><title>Next</title><h1>Next</h1>');
  });
  landing = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  landingUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  // The site's publishable browser key: its origin is the landing page's (CORS, restrictions).
  browserKey = (
    await issueKey({
      workspaceId: t.tenantA.workspaceId,
      kind: 'publishable',
      name: 'web conversions test site',
      publishable: {
        environment: 'production',
        platform: 'browser',
        origins: [landingUrl],
        androidPackage: null,
        androidSha256Certs: [],
        iosBundleId: null,
      },
    })
  ).key;
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  for (const dir of userDataDirs) rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => {
    if (landing)
      landing.close(() => {
        resolve();
      });
    else resolve();
  });
  // The stack may not have started (a failing beforeAll).
  await (t as TestStack | undefined)?.stop();
});

const browser = async (): Promise<{ page: Page; context: BrowserContext }> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'conversions-chromium-'));
  userDataDirs.push(dir);
  const context = await launchChromium(dir, {
    // The flag too: a keepalive request sent as the page is left carries the browser's own user
    // agent (headless Chromium's, a bot's), not the context's override.
    args: [...CHROMIUM_ARGS, `--user-agent=${DESKTOP}`],
    userAgent: DESKTOP,
    viewport: { width: 1000, height: 700 },
    timeout: 30_000,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return { page, context };
};

const server = (key = t.tenantA.serverKey) => ({ 'api-key': key });
const site = () => ({ 'x-publishable-key': browserKey, origin: landingUrl });
const edgePort = () => new URL(t.edgeUrl).port;

const trackedLink = async (tenant: TestStack['tenantA'], url: string) => {
  const res = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: server(tenant.serverKey),
    json: { url, domain: tenant.domain, trackConversions: true, tracking: { utmSource: 'mail' } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; key: string; trackConversions: boolean };
};

/** The token a tracked click carries to its destination (the edge's Location). */
const tokenOfClick = async (tenant: TestStack['tenantA'], key: string): Promise<string> => {
  const res = await edgeRequest(t.edgeUrl, {
    host: tenant.domain,
    path: `/${key}`,
    headers: { 'user-agent': DESKTOP },
  });
  await t.idle();
  expect(res.status).toBe(302);
  return new URL(String(res.headers.location)).searchParams.get('lsid') ?? '';
};

/** Waits (bounded) until the lake holds a customer event of the link. */
const customerEventsOf = async (linkId: string, count: number): Promise<EventRecord[]> => {
  await t.idle();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const events = (await readLakeEvents()).filter((e) => e.linkId === linkId && e.eventType === 'customer_event');
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('web conversions in a real browser (headless Chromium)', () => {
  it('a click on a tracked link, a sign-up tracked on the landing page: in the link analytics and the raw export', async () => {
    const link = await trackedLink(t.tenantA, `${landingUrl}/signup`);
    expect(link.trackConversions).toBe(true);
    const { page, context } = await browser();
    await page.goto(`http://${t.tenantA.domain}:${edgePort()}/${link.key}`);
    await page.waitForFunction("'linkservice' in window");
    // The script took the token out of the address bar; the link's own tracking stays.
    expect(page.url()).toBe(`${landingUrl}/signup?utm_source=mail`);
    const cookie = (await context.cookies(landingUrl)).find((c) => c.name === COOKIE);
    expect(cookie?.sameSite).toBe('Lax');
    // 90 days, give or take the test's own seconds.
    expect((cookie?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(89 * 86_400);
    const claims = readClickToken(decodeURIComponent(cookie?.value ?? ''));
    expect(claims).toMatchObject({ linkId: link.id, workspaceId: t.tenantA.workspaceId });

    await page.evaluate("linkservice.track('sign_up', { plan: 'pro' })");
    // Leaving the page sends the batch (pagehide, fetch keepalive).
    await page.goto(`${landingUrl}/next`);
    const [event] = await customerEventsOf(link.id, 1);
    expect(event).toMatchObject({
      eventType: 'customer_event',
      sdkEventName: 'sign_up',
      linkId: link.id,
      clickId: claims?.clickId,
      responseKind: 'browser',
      trafficType: 'human',
      properties: JSON.stringify({ plan: 'pro' }),
    });
    // The click it converts is the click the edge recorded.
    const clicks = (await readLakeEvents()).filter((e) => e.linkId === link.id && e.eventType === 'click');
    expect(clicks.map((c) => c.clickId)).toEqual([claims?.clickId]);
    expect(clicks[0]?.resolvedDestinationUrl).toBe(`${landingUrl}/signup?utm_source=mail`);

    const analytics = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}`, { headers: server() });
    expect(analytics.status, analytics.text).toBe(200);
    expect(analytics.body.data.summary).toMatchObject({ humanClicks: 1, customerEvents: 1 });
    expect(analytics.body.data.customerEvents).toEqual([
      { key: 'sign_up', label: 'sign_up', count: 1, percentage: 100 },
    ]);

    const raw = await http(t.baseUrl, 'GET', '/v1/analytics/events?eventType=customer_event&limit=100', {
      headers: server(),
    });
    expect(raw.status, raw.text).toBe(200);
    const exported = (raw.body.data as Array<{ eventId: string }>).find((e) => e.eventId === event?.eventId);
    expect(exported).toMatchObject({ clickId: claims?.clickId, linkId: link.id, source: 'browser' });
  });

  it('consent mode sets no cookie before grantConsent(), and the cookie after', async () => {
    const link = await trackedLink(t.tenantA, `${landingUrl}/signup?consent=required`);
    const { page, context } = await browser();
    await page.goto(`http://${t.tenantA.domain}:${edgePort()}/${link.key}`);
    await page.waitForFunction("'linkservice' in window");
    expect(await context.cookies(landingUrl)).toEqual([]);
    expect(await page.evaluate('document.cookie')).toBe('');
    const token: string | null = await page.evaluate('linkservice.token()');
    expect(readClickToken(token ?? '')?.linkId).toBe(link.id);
    await page.evaluate('linkservice.grantConsent()');
    const cookies = await context.cookies(landingUrl);
    expect(cookies.map((c) => [c.name, decodeURIComponent(c.value)])).toEqual([[COOKIE, token]]);
  });
});

describe('POST /v1/client/events with click tokens', () => {
  const send = (events: unknown[]) =>
    http(t.baseUrl, 'POST', '/v1/client/events', { headers: site(), json: { events } });

  it('refuses a forged token, another workspace’s and an expired one with 400 and the reason', async () => {
    const link = await trackedLink(t.tenantA, `${landingUrl}/signup`);
    const token = await tokenOfClick(t.tenantA, link.key);
    const claims = readClickToken(token);
    expect(claims).not.toBeNull();
    if (!claims) return;

    const forged = signClickToken(claims, 'not the workspace secret');
    const linkB = await trackedLink(t.tenantB, 'https://example.com/b');
    const foreign = await tokenOfClick(t.tenantB, linkB.key);
    const settings = await conversionSettingsRepository.get(t.tenantA.workspaceId);
    const expired = signClickToken(
      { ...claims, issuedAt: claims.issuedAt - 91 * 86_400 },
      settings?.secret ?? 'the workspace has a secret',
    );
    const cases: Array<[string, RegExp]> = [
      [forged, /signature does not verify/],
      [foreign, /another workspace/],
      [expired, /expired/],
      ['v1.garbage', /malformed/],
    ];
    for (const [clickToken, reason] of cases) {
      const res = await send([{ name: 'sign_up', clickToken }]);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toMatch(reason);
      expect(res.body.error.details).toEqual([{ path: 'events.0.clickToken', message: res.body.error.message }]);
    }
  });

  it('rejects the bad event of a batch and queues the rest', async () => {
    const link = await trackedLink(t.tenantA, `${landingUrl}/signup`);
    const token = await tokenOfClick(t.tenantA, link.key);
    const claims = readClickToken(token);
    const res = await send([
      { name: 'purchase', eventId: `ok-${link.id}`, clickToken: token, properties: { amount: 49 } },
      { name: 'purchase', eventId: `bad-${link.id}`, clickToken: signClickToken(claims!, 'forged') },
      { name: 'newsletter', eventId: `plain-${link.id}` },
    ]);
    expect(res.status, res.text).toBe(202);
    expect(res.body.data.accepted).toEqual([
      { eventId: `ok-${link.id}`, status: 'queued' },
      {
        eventId: `bad-${link.id}`,
        status: 'rejected',
        error: {
          code: 'invalid_request',
          message: 'The click token signature does not verify',
          details: [{ path: 'events.1.clickToken', message: 'The click token signature does not verify' }],
        },
      },
      { eventId: `plain-${link.id}`, status: 'queued' },
    ]);
    const [event] = await customerEventsOf(link.id, 1);
    expect(event).toMatchObject({ eventId: `ok-${link.id}`, clickId: claims?.clickId, responseKind: 'browser' });
    // An event that names another link than its token's is refused.
    const other = await send([{ name: 'purchase', clickToken: token, linkId: 'lnk_other' }]);
    expect(other.status).toBe(400);
    expect(other.body.error.details).toEqual([
      { path: 'events.0.linkId', message: 'The linkId is not the link of the click token' },
    ]);
  });
});

describe('turning tracking on', { timeout: 240_000 }, () => {
  it('trackConversions: false by default; set on create, PATCH and bulk; shown by GET and the list', async () => {
    const plain = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://example.com/plain', domain: t.tenantA.domain },
    });
    expect(plain.body.data.trackConversions).toBe(false);
    const on = await http(t.baseUrl, 'PATCH', `/v1/links/${String(plain.body.data.id)}`, {
      headers: server(),
      json: { trackConversions: true },
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data.trackConversions).toBe(true);
    const got = await http(t.baseUrl, 'GET', `/v1/links/${String(plain.body.data.id)}`, { headers: server() });
    expect(got.body.data.trackConversions).toBe(true);
    const list = await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: server() });
    const listed = (list.body.data as Array<{ id: string; trackConversions: boolean }>).find(
      (l) => l.id === plain.body.data.id,
    );
    expect(listed?.trackConversions).toBe(true);
    const bulk = await http(t.baseUrl, 'POST', '/v1/links/bulk', {
      headers: server(),
      json: {
        links: [
          { url: 'https://example.com/bulk-on', domain: t.tenantA.domain, trackConversions: true },
          { url: 'https://example.com/bulk-off', domain: t.tenantA.domain },
        ],
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    const created = await Promise.all(
      (bulk.body.data as Array<{ data?: { id: string } }>).map(async (r) => {
        const one = await http(t.baseUrl, 'GET', `/v1/links/${r.data?.id ?? 'missing'}`, { headers: server() });
        return one.body.data.trackConversions as boolean;
      }),
    );
    expect(created).toEqual([true, false]);
    const wrong = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://example.com/x', domain: t.tenantA.domain, trackConversions: 'yes' },
    });
    expect(wrong.status).toBe(400);
  });

  it("a domain's setting (admin set-domain-conversions) tracks every link; the workspace's parameter (admin set-conversion-param) carries the token", async () => {
    const link = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(t.tenantB.serverKey),
      json: { url: 'https://example.com/untracked', domain: t.tenantB.domain },
    });
    expect(link.body.data.trackConversions).toBe(false);
    const key = String(link.body.data.key);
    const locationOf = async () => {
      const res = await edgeRequest(t.edgeUrl, {
        host: t.tenantB.domain,
        path: `/${key}`,
        headers: { 'user-agent': DESKTOP },
      });
      await t.idle();
      return new URL(String(res.headers.location));
    };
    expect([...(await locationOf()).searchParams.keys()]).toEqual([]);

    expect(await runAdminJson(['set-domain-conversions', t.tenantB.domain, 'on'])).toEqual({
      domain: t.tenantB.domain,
      trackConversions: true,
    });
    expect(await runAdminJson(['set-conversion-param', t.tenantB.workspaceId, 'click_ref'])).toEqual({
      workspaceId: t.tenantB.workspaceId,
      param: 'click_ref',
    });
    // The edge sees both within its caches' 60 s; this process's caches are cleared instead of waited for.
    clearHostCache();
    clearConversionSettingsCache();
    const tracked = await locationOf();
    expect(tracked.searchParams.has('lsid')).toBe(false);
    expect(readClickToken(tracked.searchParams.get('click_ref') ?? '')).toMatchObject({
      linkId: link.body.data.id,
      workspaceId: t.tenantB.workspaceId,
    });

    await runAdminJson(['set-domain-conversions', t.tenantB.domain, 'off']);
    clearHostCache();
    expect([...(await locationOf()).searchParams.keys()]).toEqual([]);
  });
});
