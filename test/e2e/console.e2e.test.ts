/**
 * The web console in Chromium against the local stack: sign-in, the app shell, the links pages
 * (create, see, edit, archive, restore, search), sign-out (the cookie stops working), a read-only
 * key's view; axe-core on every page (no serious or critical violation), keyboard focus, the
 * security headers, and the initial JavaScript's size. Screenshots of each page go to
 * test/artifacts/console/ (CI keeps them). The second part's pages: console-analytics.e2e.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { issueKey, revokeKeyById } from '@shared/admin/api-key-lifecycle';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '@shared/http/console-headers';
import { consoleDistDir } from '@shared/local/console-build';
import { requireChromium } from '@test/support/chromium';
import {
  consoleScreenshot,
  openConsoleBrowser,
  seriousViolations as axeViolations,
  type ConsoleBrowser,
} from '@test/support/console-browser';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

// No Chromium, no browser tests: the file fails at once with the line that says how to install it.
requireChromium();
/** The initial JavaScript a page of the console may load, gzipped. */
const INITIAL_JS_BUDGET = 200 * 1024;

let t: TestStack;
let origin: string;
let readOnlyKey: string;
let readOnlyKeyId: string;
let browser: ConsoleBrowser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  t = await startTestStack();
  const readOnly = await issueKey({
    workspaceId: t.tenantA.workspaceId,
    kind: 'server',
    name: 'console read-only',
    scopes: ['read'],
  });
  readOnlyKey = readOnly.key;
  readOnlyKeyId = readOnly.id;
  browser = await openConsoleBrowser(t.baseUrl);
  ({ origin, context, page } = browser);
});

afterAll(async () => {
  // The stack or the browser may not have started (a failing beforeAll).
  await (browser as ConsoleBrowser | undefined)?.close();
  await (t as TestStack | undefined)?.stop();
});

const seriousViolations = () => axeViolations(page);

const screenshot = (name: string) => consoleScreenshot(page, name);

const linksTable = () => page.getByRole('table', { name: 'Links', exact: true });

/** The API as the tenant's key sees it (to check what the console did). */
const apiGet = (apiKey: string, pathname: string) =>
  http(t.baseUrl, 'GET', pathname, { headers: { 'api-key': apiKey } });

describe('the console build', () => {
  it('loads at most 200 KB of gzipped JavaScript up front, and its page has no inline script', () => {
    const html = readFileSync(path.join(consoleDistDir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/\bsrc="/);
      expect(body?.trim()).toBe('');
    }
    const initial = [
      ...html.matchAll(/<script\b[^>]*\bsrc="\/console\/([^"]+)"/g),
      ...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="\/console\/([^"]+)"/g),
    ].map((m) => m[1] ?? '');
    expect(initial.length).toBeGreaterThan(0);
    const gzipped = initial.reduce(
      (sum, file) => sum + gzipSync(readFileSync(path.join(consoleDistDir, file))).length,
      0,
    );
    expect(gzipped).toBeGreaterThan(10 * 1024);
    expect(gzipped).toBeLessThanOrEqual(INITIAL_JS_BUDGET);
  });
});

describe('the console in Chromium', () => {
  it('serves the app under /console/ with its security headers, an SPA fallback, and 404 for a missing asset', async () => {
    const response = await page.goto(`${origin}/console/`);
    expect(response?.status()).toBe(200);
    const headers = response?.headers() ?? {};
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['content-security-policy']).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');

    const deep = await http(t.baseUrl, 'GET', '/console/links/lnk_anything');
    expect(deep.status).toBe(200);
    expect(deep.text).toContain('<div id="root">');
    const missing = await http(t.baseUrl, 'GET', '/console/assets/gone-1234.js');
    expect(missing.status).toBe(404);
    const html = readFileSync(path.join(consoleDistDir, 'index.html'), 'utf8');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? '';
    const asset = await http(t.baseUrl, 'GET', script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('signs in: a wrong key shows the API message and request id; the demo key opens the links page', async () => {
    // Not signed in: the app sends the visitor to sign-in.
    await page.waitForURL(`${origin}/console/sign-in`);
    const apiKey = page.getByRole('textbox', { name: 'API key', exact: true });
    await apiKey.waitFor();
    expect(await seriousViolations()).toEqual([]);
    await screenshot('sign-in');

    await apiKey.fill('sk_live_not_a_real_key_at_all_000000000');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Request id\s*\S+/);
    // A wrong key is not a session that ended: the page says only what the API said.
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    expect(await seriousViolations()).toEqual([]);
    await screenshot('sign-in-error');

    await apiKey.fill(t.tenantA.serverKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/console/links`);
    // The key is not kept by the page; the HttpOnly session cookie is not readable by it.
    const stored: string = await page.evaluate(
      `JSON.stringify(Array.from({ length: localStorage.length }, (_, i) => localStorage.getItem(localStorage.key(i)))) + document.cookie`,
    );
    expect(stored).not.toContain(t.tenantA.serverKey);
    expect(stored).not.toContain('__Host-session');
    const cookies = await context.cookies(origin);
    const session = cookies.find((c) => c.name === '__Host-session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });

    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Links', 'Deep links', 'Domains', 'Import', 'Events'])
      expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sign out', exact: true }).count()).toBe(1);
    expect(await page.getByRole('banner').textContent()).toContain(t.tenantA.workspaceId);
    // A new workspace: the empty state says what to do first.
    await page.getByRole('heading', { name: 'No links yet' }).waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search links', exact: true }).count()).toBe(1);
    expect(await seriousViolations()).toEqual([]);
    await screenshot('links-empty');
  });

  it('creates a link in the "New link" dialog, shows it with a copy button, and lists it in the table', async () => {
    const newLink = page.getByRole('button', { name: 'New link', exact: true });
    await newLink.click();
    const dialog = page.getByRole('dialog', { name: 'New link', exact: true });
    await dialog.waitFor();
    // Focus moved into the dialog, on its first field.
    const destination = dialog.getByRole('textbox', { name: 'Destination URL', exact: true });
    expect(await destination.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    const domain = dialog.getByRole('combobox', { name: 'Domain', exact: true });
    // The domains arrive from the API: the select fills once they do.
    await domain.locator('option', { hasText: t.tenantA.domain }).waitFor({ state: 'attached' });
    expect(await domain.inputValue()).toBe(t.tenantA.domain);
    expect(await seriousViolations()).toEqual([]);

    await destination.fill('https://example.com/spring?from=console');
    await dialog.getByRole('textbox', { name: 'Short key', exact: true }).fill('spring-sale');
    await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('Spring sale');
    await dialog.getByRole('textbox', { name: 'Tags', exact: true }).fill('spring, promo');
    await dialog.locator('summary', { hasText: 'UTM and campaign tracking' }).click();
    await dialog.getByRole('textbox', { name: 'UTM source', exact: true }).fill('newsletter');
    await dialog.getByRole('textbox', { name: 'UTM campaign', exact: true }).fill('spring');
    await dialog.locator('summary', { hasText: 'Geo targeting and platform overrides' }).click();
    await dialog.getByRole('textbox', { name: 'Geo targeting', exact: true }).fill('DE=https://example.de/spring');
    await dialog.getByRole('textbox', { name: 'iOS URL', exact: true }).fill('https://apps.example.com/ios');
    await dialog.locator('summary', { hasText: 'Social preview' }).click();
    await dialog.getByRole('textbox', { name: 'Preview title', exact: true }).fill('Spring sale preview');
    await screenshot('new-link-dialog');
    await dialog.getByRole('button', { name: 'Create link', exact: true }).click();

    const copy = dialog.getByRole('button', { name: 'Copy short link', exact: true });
    await copy.waitFor();
    const shortLink = (await dialog.getByRole('link').first().textContent()) ?? '';
    expect(shortLink).toMatch(new RegExp(`${t.tenantA.domain.replace(/\./g, '\\.')}.*/spring-sale$`));
    await copy.click();
    await dialog.getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(shortLink);
    expect(await seriousViolations()).toEqual([]);
    await screenshot('new-link-created');

    await dialog.getByRole('button', { name: 'Done', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // Focus back on the control that opened the dialog.
    expect(await newLink.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

    const row = linksTable().getByRole('row').filter({ hasText: 'spring-sale' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Spring sale');
    expect(await row.textContent()).toContain('promo');
    const anchor = row.getByRole('link', { name: /spring-sale$/ });
    const href = await anchor.getAttribute('href');
    expect(href).toMatch(/^\/console\/links\/[^/]+$/);

    // Every field reached the API.
    const list = await apiGet(t.tenantA.serverKey, '/v1/links?search=spring-sale');
    const link = list.body.data[0];
    expect(link).toMatchObject({
      key: 'spring-sale',
      url: 'https://example.com/spring?from=console',
      title: 'Spring sale',
      tracking: { utmSource: 'newsletter', utmCampaign: 'spring' },
      geo: { DE: 'https://example.de/spring' },
      iosOverrideUrl: 'https://apps.example.com/ios',
      socialPreview: { title: 'Spring sale preview' },
    });
    expect(href).toBe(`/console/links/${link.id}`);
    expect(await seriousViolations()).toEqual([]);
    await screenshot('links');
  });

  it('closes a dialog with Escape and gives focus back; keyboard focus is visible', async () => {
    const newLink = page.getByRole('button', { name: 'New link', exact: true });
    await newLink.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New link', exact: true });
    await dialog.waitFor();
    // Tab stays inside the modal dialog.
    for (let i = 0; i < 25; i++) await page.keyboard.press('Tab');
    expect(await dialog.evaluate((el) => el.contains(el.ownerDocument.activeElement))).toBe(true);
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).not.toBe('none');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await newLink.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
  });

  it('edits a link: every field prefilled, the change saved and shown', async () => {
    const row = linksTable().getByRole('row').filter({ hasText: 'spring-sale' });
    await row.getByRole('button', { name: /^Edit / }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit link', exact: true });
    await dialog.waitFor();
    expect(await dialog.getByRole('textbox', { name: 'Destination URL', exact: true }).inputValue()).toBe(
      'https://example.com/spring?from=console',
    );
    await dialog.locator('summary', { hasText: 'UTM and campaign tracking' }).click();
    expect(await dialog.getByRole('textbox', { name: 'UTM source', exact: true }).inputValue()).toBe('newsletter');
    await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('Spring sale, extended');
    await dialog.getByRole('textbox', { name: 'UTM source', exact: true }).fill('');
    expect(await seriousViolations()).toEqual([]);
    await screenshot('edit-link-dialog');
    await dialog.getByRole('button', { name: 'Save changes', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await linksTable().getByRole('row').filter({ hasText: 'Spring sale, extended' }).waitFor();

    const list = await apiGet(t.tenantA.serverKey, '/v1/links?search=spring-sale');
    expect(list.body.data[0].title).toBe('Spring sale, extended');
    expect(list.body.data[0].tracking).toEqual({ utmCampaign: 'spring' });
    expect(list.body.data[0].geo).toEqual({ DE: 'https://example.de/spring' });
  });

  it('archives a link and restores it from the archived filter', async () => {
    const active = () => linksTable().getByRole('row').filter({ hasText: 'spring-sale' });
    await active()
      .getByRole('button', { name: /^Archive / })
      .click();
    await active().waitFor({ state: 'detached' });
    expect((await apiGet(t.tenantA.serverKey, '/v1/links?archived=true')).body.data).toHaveLength(1);

    await page.getByRole('checkbox', { name: 'Show archived links', exact: true }).check();
    await page.waitForURL(/archived=true/);
    const archived = linksTable().getByRole('row').filter({ hasText: 'spring-sale' });
    await archived.waitFor();
    expect(await archived.textContent()).toContain('Archived');
    await screenshot('links-archived');
    await archived.getByRole('button', { name: /^Restore / }).click();
    await archived.waitFor({ state: 'detached' });

    await page.getByRole('checkbox', { name: 'Show archived links', exact: true }).uncheck();
    await active().waitFor();
    expect((await apiGet(t.tenantA.serverKey, '/v1/links?archived=true')).body.data).toHaveLength(0);
  });

  it('searches and sorts, with the filters in the address', async () => {
    await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/autumn', domain: t.tenantA.domain, key: 'autumn-fair', title: 'Autumn fair' },
    });
    await page.reload();
    await linksTable().getByRole('row').filter({ hasText: 'autumn-fair' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search links', exact: true }).fill('autumn');
    await page.waitForURL(/[?&]q=autumn/);
    await linksTable().getByRole('row').filter({ hasText: 'spring-sale' }).waitFor({ state: 'detached' });
    expect(await linksTable().getByRole('row').filter({ hasText: 'autumn-fair' }).count()).toBe(1);

    // The address is the view: opened afresh, it shows the same filtered list.
    await page.goto(`${origin}/console/links?q=spring&sort=created_at_asc`);
    await linksTable().getByRole('row').filter({ hasText: 'spring-sale' }).waitFor();
    expect(await linksTable().getByRole('row').filter({ hasText: 'autumn-fair' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Sort by', exact: true }).inputValue()).toBe('created_at_asc');
    expect(await page.getByRole('searchbox', { name: 'Search links', exact: true }).inputValue()).toBe('spring');
  });

  it("opens a link's page from its short link, and every page of the navigation passes axe", async () => {
    await linksTable()
      .getByRole('link', { name: /spring-sale$/ })
      .click();
    await page.waitForURL(/\/console\/links\/[^/?]+$/);
    await page.getByRole('heading', { level: 1, name: /spring-sale$/ }).waitFor();
    expect(await seriousViolations()).toEqual([]);
    await screenshot('link-page');

    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const [name, slug] of [
      ['Deep links', 'deep-links'],
      ['Domains', 'domains'],
      ['Import', 'import'],
      ['Events', 'events'],
      ['Links', 'links'],
    ] as const) {
      await nav.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`${origin}/console/${slug}`);
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
      expect(await nav.getByRole('link', { name, exact: true }).getAttribute('aria-current')).toBe('page');
      expect(await seriousViolations()).toEqual([]);
      await screenshot(`page-${slug}`);
    }
  });

  it('signs out: back to sign-in, and the old cookie no longer works', async () => {
    const cookie = (await context.cookies(origin)).find((c) => c.name === '__Host-session');
    expect(cookie).toBeDefined();
    const pair = `${cookie?.name ?? ''}=${cookie?.value ?? ''}`;
    const before = await http(t.baseUrl, 'GET', '/v1/links', {
      headers: { cookie: pair, 'x-requested-with': 'console' },
    });
    expect(before.status).toBe(200);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${origin}/console/sign-in`);
    await page.getByText('You have signed out.').waitFor();
    expect((await context.cookies(origin)).some((c) => c.name === '__Host-session')).toBe(false);
    const after = await http(t.baseUrl, 'GET', '/v1/links', {
      headers: { cookie: pair, 'x-requested-with': 'console' },
    });
    expect(after.status).toBe(401);
    // A signed-out visitor who opens a page of the app is sent to sign-in.
    await page.goto(`${origin}/console/links`);
    await page.waitForURL(`${origin}/console/sign-in`);
  });

  it('a read-only key sees the links but no edit controls, and the API refuses its writes', async () => {
    await page.getByRole('textbox', { name: 'API key', exact: true }).fill(readOnlyKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/console/links`);
    await linksTable().getByRole('row').filter({ hasText: 'spring-sale' }).waitFor();
    expect(await page.getByText('Read-only').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'New link' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Archive|Restore) / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Copy / }).count()).toBe(2);
    expect(await seriousViolations()).toEqual([]);
    await screenshot('links-read-only');

    const refused = await page.evaluate(async (domain) => {
      const response = await fetch('/v1/links', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
        body: JSON.stringify({ url: 'https://example.com/nope', domain }),
      });
      return response.status;
    }, t.tenantA.domain);
    expect(refused).toBe(403);
  });

  it('goes back to sign-in, saying so, when the session ends because its key is revoked', async () => {
    await revokeKeyById(readOnlyKeyId);
    await page.reload();
    await page.waitForURL(`${origin}/console/sign-in`);
    await page.getByText('Your session has ended: sign in again.').waitFor();
    expect(await seriousViolations()).toEqual([]);
    await screenshot('session-ended');
  });

  it('made no request to another origin and logged no error (no CSP violation)', () => {
    expect(browser.foreign).toEqual([]);
    // The failed sign-in and the read-only write are answered 401 and 403: the browser logs those.
    expect(browser.problems.filter((p) => !/status of (401|403)/.test(p))).toEqual([]);
  });
});
