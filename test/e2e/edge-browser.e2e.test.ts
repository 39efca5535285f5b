import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { configureApp } from '@shared/admin/configure-app';
import type { EventRecord } from '@shared/events/event-record';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { readLakeEvents } from '@test/support/edge-client';
import { CHROMIUM_ARGS, launchChromium, requireChromium } from '@test/support/chromium';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

// No Chromium, no browser tests: the file fails at once with the line that says how to install it.
requireChromium();
const ARTIFACTS = path.resolve('test/artifacts');
/** Safari on iOS 26 (it still reports 18_6). */
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/** Chrome on Android sends the reduced user agent since M110. */
const ANDROID =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const INSTAGRAM_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 385.0.0.32.79 (iPhone16,2; iOS 18_5; en_US; en; scale=3.00; 1290x2796; 745960233)';

let t: TestStack;
let landing: Server | undefined;
let landingUrl: string;
const userDataDirs: string[] = [];
/** Console messages of every page: a CSP violation would show here. */
const consoleMessages: string[] = [];
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  t = await startTestStack();
  // The links' destination: a local page, so the browser really lands somewhere.
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Landing</title><h1>Landing page</h1><p id="path">${(req.url ?? '').replace(/[<>&"]/g, '')}</p>`,
    );
  });
  landing = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  landingUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await mkdir(ARTIFACTS, { recursive: true });
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

/** A fresh browser profile per context, emulating the given user agent. */
const browser = async (userAgent = DESKTOP, isMobile = false): Promise<Page> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edge-chromium-'));
  userDataDirs.push(dir);
  const context = await launchChromium(dir, {
    args: [...CHROMIUM_ARGS],
    userAgent,
    viewport: isMobile ? { width: 390, height: 844 } : { width: 1000, height: 700 },
    isMobile,
    hasTouch: isMobile,
    timeout: 30_000,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => consoleMessages.push(message.text()));
  return page;
};

/** Waits (bounded) until the lake holds the expected event types for a link. */
const eventsOf = async (linkId: string, expected: EventRecord['eventType'][]): Promise<EventRecord[]> => {
  // What the edge has received is finished (clicks are recorded after the response); the
  // browser's beacons may still be on their way, hence the wait below.
  await t.idle();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = (await readLakeEvents()).filter((e) => e.linkId === linkId);
    const types = events.map((e) => e.eventType);
    if (expected.every((type) => types.includes(type)) || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
};

const edgePort = () => new URL(t.edgeUrl).port;

describe('the edge in a real browser (headless Chromium)', () => {
  it('follows a redirect to the destination and records the click', async () => {
    const link = await createShortLink(
      t.tenantA.workspaceId,
      {
        url: `${landingUrl}/from-redirect`,
        domain: t.tenantA.domain,
        tracking: { utmSource: 'browser' },
      },
      TEST_ORIGIN,
    );
    const page = await browser();
    const response = await page.goto(`http://${t.tenantA.domain}:${edgePort()}/${link.key}`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${landingUrl}/from-redirect?utm_source=browser`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Landing page');
    await page.screenshot({ path: path.join(ARTIFACTS, 'edge-redirect.png') });
    const events = await eventsOf(link.id, ['click']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'click',
      trafficType: 'human',
      responseKind: 'redirect',
      platform: 'desktop',
    });
  });

  it('unlocks a password-protected link through the form', async () => {
    const link = await createShortLink(
      t.tenantA.workspaceId,
      {
        url: `${landingUrl}/secret`,
        domain: t.tenantA.domain,
        password: 'correct horse',
      },
      TEST_ORIGIN,
    );
    const page = await browser();
    const first = await page.goto(`http://${t.tenantA.domain}:${edgePort()}/${link.key}`);
    expect(first?.status()).toBe(200);
    await page.screenshot({ path: path.join(ARTIFACTS, 'edge-password.png') });

    await page.fill('#password', 'wrong');
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.request().isNavigationRequest() && r.request().method() === 'POST'),
      page.click('button[type=submit]'),
    ]);
    expect(wrong.status()).toBe(401);
    await expect(page.locator('.error').textContent()).resolves.toContain('Wrong password');

    await page.fill('#password', 'correct horse');
    await Promise.all([page.waitForURL(`${landingUrl}/secret`), page.click('button[type=submit]')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Landing page');
    expect(page.url()).not.toContain('horse');
    expect(await page.context().cookies()).toEqual([]);
    const events = await eventsOf(link.id, ['click']);
    expect(events.map((e) => e.eventType)).toEqual(['click']);
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(1);
  });

  it('shows the launch view on iOS: nothing automatic; Open in app copies the hand-off (opted in) and goes to the store; each tap recorded', async () => {
    // A tenant of its own whose app opted in to the pasteboard hand-off (before the edge reads the app).
    const tenant = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    await configureApp(tenant.deepLinkApp.domain, { pasteboardHandoff: true });
    const link = await createDeepLink(
      tenant.workspaceId,
      {
        deepLinkAppId: tenant.deepLinkApp.id,
        url: `${landingUrl}/in-app-content`,
        title: 'Spring <sale>',
      },
      TEST_ORIGIN,
    );
    const page = await browser(IPHONE, true);
    const appHost = `${tenant.deepLinkApp.domain}:${edgePort()}`;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://${appHost}` });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const launchUrl = `http://${appHost}/${link.key}`;
    await page.goto(launchUrl);
    await page.waitForLoadState('networkidle');
    // Nothing happens without a tap: the page stays, and it asked for nothing but itself.
    expect(page.url()).toBe(launchUrl);
    expect(requests).toEqual([launchUrl]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Spring <sale>');
    await expect(page.locator('#open').textContent()).resolves.toBe('Open in app');
    await expect(page.locator('#web').textContent()).resolves.toBe('Continue to website');
    await page.screenshot({ path: path.join(ARTIFACTS, 'edge-launch-view.png') });

    // "Open in app": a cross-domain universal link carrying the click id; without the app the
    // edge sends it to the App Store. The tap copies the hand-off URL first.
    const clickId = await page.locator('#lv').getAttribute('data-click');
    await expect(page.locator('#open').getAttribute('href')).resolves.toBe(
      `http://open.${appHost}/${link.key}?c=${clickId}`,
    );
    const storeRequest = page.waitForRequest((r) => r.url().startsWith('https://apps.apple.com/'));
    await page.click('#open');
    await storeRequest;
    // The pasteboard now holds the link with its click id (read on the app's origin, from a
    // page of the edge that records no click).
    await page.goto(`http://${appHost}/.well-known/apple-app-site-association`);
    await page.bringToFront();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(
      `http://${appHost}/${link.key}?c=${clickId}`,
    );

    // Back on the launch view (a new visit): "Continue to website".
    await page.goto(launchUrl);
    await Promise.all([page.waitForURL(`${landingUrl}/in-app-content`), page.click('#web')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Landing page');

    const expected: EventRecord['eventType'][] = [
      'click',
      'click',
      'launch_view_impression',
      'launch_view_impression',
      'launch_view_primary_click',
      'launch_view_secondary_click',
    ];
    const events = await eventsOf(link.id, ['launch_view_primary_click', 'launch_view_secondary_click']);
    expect(events.map((e) => e.eventType).sort()).toEqual([...expected].sort());
    expect(
      events
        .filter((e) => e.clickId === clickId)
        .map((e) => e.eventType)
        .sort(),
    ).toEqual(['click', 'launch_view_impression', 'launch_view_primary_click']);
    expect(
      events.every(
        (e) => e.platform === 'ios' && e.trafficType === 'human' && e.deepLinkAppId === tenant.deepLinkApp.id,
      ),
    ).toBe(true);
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(2);
    expect(consoleMessages.filter((m) => /Content Security Policy/i.test(m))).toEqual([]);
  });

  it('shows the launch view on Android: no attempt, an intent with the click id and the Play Store referrer; taps recorded', async () => {
    const link = await createDeepLink(
      t.tenantA.workspaceId,
      {
        deepLinkAppId: t.tenantA.deepLinkApp.id,
        url: `${landingUrl}/android`,
      },
      TEST_ORIGIN,
    );
    const page = await browser(ANDROID, true);
    const launchUrl = `http://${t.tenantA.deepLinkApp.domain}:${edgePort()}/${link.key}`;
    await page.goto(launchUrl);
    await page.waitForLoadState('networkidle');
    expect(page.url()).toBe(launchUrl);
    const clickId = await page.locator('#lv').getAttribute('data-click');
    const intent = await page.locator('#open').getAttribute('href');
    expect(intent).toMatch(new RegExp(`^intent://[^#]+/${link.key}\\?c=${clickId}#Intent;`));
    expect(decodeURIComponent(/S\.browser_fallback_url=([^;]+);/.exec(intent!)![1]!)).toContain(
      `&referrer=click_id%3D${clickId}`,
    );
    await Promise.all([page.waitForURL(`${landingUrl}/android`), page.click('#web')]);
    const events = await eventsOf(link.id, ['launch_view_secondary_click']);
    expect(events.map((e) => e.eventType).sort()).toEqual(
      ['click', 'launch_view_impression', 'launch_view_secondary_click'].sort(),
    );
    expect(events.every((e) => e.platform === 'android' && e.clickId === clickId)).toBe(true);
  });

  it('in an in-app browser (Instagram on iOS) attempts nothing and offers the custom scheme and a hint', async () => {
    const link = await createDeepLink(
      t.tenantA.workspaceId,
      {
        deepLinkAppId: t.tenantA.deepLinkApp.id,
        url: `${landingUrl}/insta`,
      },
      TEST_ORIGIN,
    );
    const page = await browser(INSTAGRAM_IOS, true);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const launchUrl = `http://${t.tenantA.deepLinkApp.domain}:${edgePort()}/${link.key}`;
    await page.goto(launchUrl);
    await page.waitForLoadState('networkidle');
    expect(page.url()).toBe(launchUrl);
    expect(requests).toEqual([launchUrl]);
    await expect(page.locator('#open').getAttribute('href')).resolves.toMatch(
      new RegExp(
        `^demo[a-z0-9]+://${t.tenantA.deepLinkApp.domain.replace(/\./g, '\\.')}/${link.key}\\?c=[0-9a-f-]{36}$`,
      ),
    );
    await expect(page.locator('#hint').isVisible()).resolves.toBe(true);
    await expect(page.locator('#hint').textContent()).resolves.toContain(
      'open this page in Safari (the Instagram menu',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'edge-launch-view-in-app.png') });
    const events = await eventsOf(link.id, ['click', 'launch_view_impression']);
    expect(events.map((e) => e.eventType).sort()).toEqual(['click', 'launch_view_impression']);
  });
});
