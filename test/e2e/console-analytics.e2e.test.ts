/**
 * The console's second part in Chromium against the local stack: a link's page (a click on the
 * local edge with CloudFront-Viewer-Country shows in the chart's text alternative and the
 * "Countries" table; the range and traffic in the address), the QR code's downloads (the PNG
 * decodes to the short link), archive and restore, deep links (the links list's filters, create and
 * edit through the deep-link routes, the launch view), domains, Import (a CSV with a bad row and a
 * taken key, its rows not created downloaded, a re-run's rows said imported before), the event
 * explorer (its CSV export equals the API's answer), the size of each route's JavaScript, and
 * axe-core on every page. Screenshots go to
 * test/artifacts/console/ (CI keeps them).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download, Page, Response } from 'playwright-core';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import { getEventSink } from '@shared/events/event-sink';
import { mapRow } from '@shared/import/csv-formats';
import { contentKeyOf } from '@shared/import/import-links';
import { createDeepLink } from '@shared/links/create-deep-link';
import { consoleDistDir } from '@shared/local/console-build';
import { generateFixtureEvents, type FixtureLink } from '@test/support/analytics-fixtures';
import { requireChromium } from '@test/support/chromium';
import {
  consoleScreenshot,
  openConsoleBrowser,
  seriousViolations,
  signInToConsole,
  type ConsoleBrowser,
} from '@test/support/console-browser';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

requireChromium();
/** The JavaScript a page of the console may load, gzipped: the first page's budget holds for every route. */
const ROUTE_JS_BUDGET = 200 * 1024;
const DAY = 86_400_000;
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

let t: TestStack;
let b: ConsoleBrowser;
let page: Page;
let linkId: string;
let shortLink: string;

beforeAll(async () => {
  t = await startTestStack();
  b = await openConsoleBrowser(t.baseUrl);
  page = b.page;
  await signInToConsole(b, t.tenantA.serverKey);
});

afterAll(async () => {
  // The stack or the browser may not have started (a failing beforeAll).
  await (b as ConsoleBrowser | undefined)?.close();
  await (t as TestStack | undefined)?.stop();
});

const apiGet = (pathname: string) => http(t.baseUrl, 'GET', pathname, { headers: { 'api-key': t.tenantA.serverKey } });
const axe = async () => {
  expect(await seriousViolations(page)).toEqual([]);
};
const screenshot = (name: string) => consoleScreenshot(page, name);
const saved = async (download: Download) => readFileSync(await download.path());
const download = async (button: string): Promise<{ name: string; body: Buffer }> => {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  return { name: file.suggestedFilename(), body: await saved(file) };
};
const rowsOf = async (table: string) =>
  page.getByRole('table', { name: table, exact: true }).locator('tbody tr').allTextContents();

describe("a link's page", () => {
  it('shows a click from the edge, with its country, in the chart\'s table and the "Countries" table', async () => {
    // The link is created in the console, as a person would.
    await page.getByRole('button', { name: 'New link', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New link', exact: true });
    await dialog
      .getByRole('combobox', { name: 'Domain', exact: true })
      .locator('option', { hasText: t.tenantA.domain })
      .waitFor({ state: 'attached' });
    await dialog.getByRole('textbox', { name: 'Destination URL', exact: true }).fill('https://example.com/summer');
    await dialog.getByRole('textbox', { name: 'Short key', exact: true }).fill('summer');
    await dialog.getByRole('button', { name: 'Create link', exact: true }).click();
    await dialog.getByRole('button', { name: 'Copy short link', exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Done', exact: true }).click();
    const list = await apiGet('/v1/links?search=summer');
    linkId = list.body.data[0].id;
    shortLink = list.body.data[0].shortLink;

    const click = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: '/summer',
      headers: { 'user-agent': DESKTOP, 'cloudfront-viewer-country': 'DE', referer: 'https://news.example.org/a' },
    });
    expect(click.status).toBe(302);
    await t.idle();

    await page
      .getByRole('table', { name: 'Links', exact: true })
      .getByRole('link', { name: /\/summer$/ })
      .click();
    await page.waitForURL(`${b.origin}/console/links/${linkId}`);
    await page.getByRole('heading', { level: 1, name: shortLink.replace(/^https?:\/\//, ''), exact: true }).waitFor();
    await page.getByRole('figure', { name: 'Clicks over time', exact: true }).waitFor();
    // The default view: the last 7 days, human traffic, one row a day.
    expect(await page.getByRole('radiogroup', { name: 'Range' }).getByRole('radio', { name: '7d' }).isChecked()).toBe(
      true,
    );
    await page
      .getByRole('table', { name: 'Countries', exact: true })
      .getByRole('row', { name: /Germany/ })
      .waitFor();
    const countries = await rowsOf('Countries');
    expect(countries).toHaveLength(1);
    expect(countries[0]).toMatch(/^Germany1100%$/);

    const series = page.getByRole('table', { name: 'Clicks over time, data', exact: true });
    const days = await series.locator('tbody tr').allTextContents();
    expect(days).toHaveLength(7);
    const api = (await apiGet(`/v1/analytics/links/${linkId}`)).body.data;
    const clicked = api.timeseries.findIndex((p: { totalClicks: number }) => p.totalClicks === 1);
    expect(clicked).toBeGreaterThanOrEqual(0);
    // The row of the click's day: its label, 1 human, 0 bots, 1 in all, 1 visitor.
    expect(days[clicked]).toBe(`${api.timeseries[clicked].label}1011`);
    expect(await page.getByRole('table', { name: 'Recent events', exact: true }).textContent()).toContain('DE');
    for (const name of ['Devices', 'Browsers', 'Operating systems', 'Referrers', 'Campaigns', 'Destinations'])
      expect(await page.getByRole('table', { name, exact: true }).count()).toBe(1);
    expect(await rowsOf('Referrers')).toEqual([expect.stringContaining('news.example.org')]);
    expect(await rowsOf('Destinations')).toEqual([expect.stringContaining('https://example.com/summer')]);
    await axe();
    await screenshot('link-analytics');
  });

  it('switches the range and the traffic, with both in the address, and opens a shared address as it was', async () => {
    await page.getByRole('radiogroup', { name: 'Range' }).getByRole('radio', { name: '24h' }).check();
    await page.waitForURL(`${b.origin}/console/links/${linkId}?range=24h`);
    await expect
      .poll(async () => (await rowsOf('Clicks over time, data')).length)
      .toBe((await apiGet(`/v1/analytics/links/${linkId}?range=24h`)).body.data.timeseries.length);
    expect(await rowsOf('Countries')).toEqual([expect.stringMatching(/^Germany1/)]);

    await page.getByRole('radiogroup', { name: 'Traffic' }).getByRole('radio', { name: 'Bots' }).check();
    await page.waitForURL(`${b.origin}/console/links/${linkId}?range=24h&traffic=bots`);
    await page.getByRole('table', { name: 'Countries', exact: true }).getByText('No data in this range.').waitFor();
    await axe();

    // Keyboard: the range is a radio group, so an arrow key moves the choice (and the address).
    await page.getByRole('radio', { name: '24h' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(`${b.origin}/console/links/${linkId}?traffic=bots`);
    expect(await page.getByRole('radio', { name: '7d' }).isChecked()).toBe(true);
    expect(await page.evaluate('getComputedStyle(document.activeElement.parentElement).outlineStyle')).not.toBe('none');

    await page.goto(`${b.origin}/console/links/${linkId}?range=90d&traffic=all`);
    await page
      .getByRole('table', { name: 'Countries', exact: true })
      .getByRole('row', { name: /Germany/ })
      .waitFor();
    expect(await page.getByRole('radio', { name: '90d' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'All' }).isChecked()).toBe(true);
    expect(await rowsOf('Clicks over time, data')).toHaveLength(90);
    await screenshot('link-analytics-90d');
  });

  it("downloads the QR code as PNG (it decodes to the short link) and as SVG (the API's own answer)", async () => {
    const qrRequest = page.waitForRequest((r) => r.url().includes(`/v1/links/${linkId}/qr?format=png`));
    const png = await download('Download QR code (PNG)');
    expect(png.name).toBe('summer-qr.png');
    // Through the SDK's session mode: the cookie and the console header, no key; the cookie alone is refused.
    const sent = await (await qrRequest).allHeaders();
    expect(sent['x-requested-with']).toBe('console');
    expect(sent['api-key']).toBeUndefined();
    const session = (await b.context.cookies(b.origin)).find((c) => c.name === '__Host-session');
    expect(session).toBeDefined();
    const cookieOnly = await http(t.baseUrl, 'GET', `/v1/links/${linkId}/qr?format=png`, {
      headers: { cookie: `__Host-session=${session?.value ?? ''}` },
    });
    expect(cookieOnly.status).toBe(401);
    expect(cookieOnly.body.error.details.reason).toBe('console_header_required');
    const image = PNG.sync.read(png.body);
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(shortLink);

    const svg = await download('Download QR code (SVG)');
    expect(svg.name).toBe('summer-qr.svg');
    const fromApi = await http(t.baseUrl, 'GET', `/v1/links/${linkId}/qr?format=svg`, {
      headers: { 'api-key': t.tenantA.serverKey },
    });
    expect(svg.body.toString('utf8')).toBe(fromApi.text);
    expect(svg.body.toString('utf8')).toContain('<svg');
  });

  it('archives the link and restores it', async () => {
    await page.getByRole('button', { name: 'Archive link', exact: true }).click();
    await page.getByRole('button', { name: 'Restore link', exact: true }).waitFor();
    expect((await apiGet(`/v1/links/${linkId}`)).body.data.archived).toBe(true);
    await page.getByRole('button', { name: 'Restore link', exact: true }).click();
    await page.getByRole('button', { name: 'Archive link', exact: true }).waitFor();
    expect((await apiGet(`/v1/links/${linkId}`)).body.data.archived).toBe(false);
  });
});

describe('a link with redirect rules and an A/B test', () => {
  it('shows which rule and which variant decided its clicks, in the "Rules" and "Variants" tables', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: {
        url: 'https://example.com/default',
        domain: t.tenantA.domain,
        key: 'ab-console',
        rules: [{ conditions: [{ type: 'country', value: 'FR' }], url: 'https://example.com/fr' }],
        variants: [
          { url: 'https://example.com/a', weight: 50 },
          { url: 'https://example.com/b', weight: 50 },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    for (const country of ['FR', 'DE', 'US']) {
      const click = await edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: '/ab-console',
        headers: { 'user-agent': DESKTOP, 'cloudfront-viewer-country': country },
      });
      expect(click.status).toBe(302);
    }
    await t.idle();
    const api = (await apiGet(`/v1/analytics/links/${id}`)).body.data;
    expect(api.ruleBreakdown).toHaveLength(1);
    expect(api.variantBreakdown.length).toBeGreaterThan(0);

    await page.goto(`${b.origin}/console/links/${id}`);
    const rules = page.getByRole('table', { name: 'Rules', exact: true });
    await rules.getByRole('row', { name: /example\.com\/fr/ }).waitFor();
    expect(await rowsOf('Rules')).toEqual([expect.stringMatching(/^https:\/\/example\.com\/fr1/)]);
    // The two clicks no rule decided (DE, US) went to the variants, as the API counts them.
    const variants = page.getByRole('table', { name: 'Variants', exact: true });
    const labels = await variants.locator('tbody th').allTextContents();
    const counts = (await variants.locator('tbody td.num').allTextContents()).map(Number);
    expect(labels).toEqual(api.variantBreakdown.map((r: { label: string }) => r.label));
    expect(counts).toEqual(api.variantBreakdown.map((r: { count: number }) => r.count));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(2);
    await axe();
    await screenshot('link-analytics-rules-variants');
  });
});

describe('deep links and domains', () => {
  it("lists deep links with the links list's filters, sort and page size, all in the address", async () => {
    const app = t.tenantA.deepLinkApp;
    const post = (json: Record<string, unknown>) =>
      http(t.baseUrl, 'POST', '/v1/deep-links', { headers: { 'api-key': t.tenantA.serverKey }, json });
    const spring = (await post({ deepLinkAppId: app.id, title: 'Spring deep link', tags: ['spring'] })).body.data;
    const other = (await post({ deepLinkAppId: app.id, title: 'Other deep link' })).body.data;
    const shortOf = (link: { shortLink: string }) => link.shortLink.replace(/^https?:\/\//, '');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deep links', exact: true }).click();
    const table = page.getByRole('table', { name: 'Deep links', exact: true });
    await table.getByRole('link', { name: shortOf(other), exact: true }).waitFor();
    await table.getByRole('link', { name: shortOf(spring), exact: true }).waitFor();

    await page.getByLabel('Tag', { exact: true }).fill('spring');
    await page.waitForURL(`${b.origin}/console/deep-links?tag=spring`);
    await expect.poll(async () => table.getByRole('link', { name: shortOf(other), exact: true }).count()).toBe(0);
    expect(await table.getByRole('link', { name: shortOf(spring), exact: true }).count()).toBe(1);

    await page.getByRole('combobox', { name: 'Sort by', exact: true }).selectOption('created_at_asc');
    await page.getByRole('combobox', { name: 'Rows per page', exact: true }).selectOption('50');
    await page.waitForURL(`${b.origin}/console/deep-links?tag=spring&sort=created_at_asc&limit=50`);

    // The navigation's link opens the list without filters: the fields follow the address (the
    // typed tag is not put back), and the other deep link shows again.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deep links', exact: true }).click();
    await expect.poll(async () => page.getByLabel('Tag', { exact: true }).inputValue()).toBe('');
    await table.getByRole('link', { name: shortOf(other), exact: true }).waitFor();
    expect(page.url()).toBe(`${b.origin}/console/deep-links`);
    expect(await page.getByRole('combobox', { name: 'Sort by', exact: true }).inputValue()).toBe('created_at_desc');

    // A shared address opens as it says, with the list the API answers for it.
    await page.goto(`${b.origin}/console/deep-links?sort=created_at_asc&limit=100`);
    await table.getByRole('link', { name: shortOf(other), exact: true }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Sort by', exact: true }).inputValue()).toBe('created_at_asc');
    expect(await page.getByRole('combobox', { name: 'Rows per page', exact: true }).inputValue()).toBe('100');
    const fromApi = (await apiGet('/v1/deep-links?sort=created_at_asc&limit=100')).body.data;
    const shown = await table.locator('tbody tr td:first-child a').allTextContents();
    expect(shown).toEqual(fromApi.map(shortOf));
    await axe();
    await screenshot('deep-links');
  });

  it('creates, edits, archives and restores a deep link through the deep-link routes', async () => {
    const app = t.tenantA.deepLinkApp;
    await page.goto(`${b.origin}/console/deep-links`);
    await page.getByRole('table', { name: 'Deep links', exact: true }).locator('tbody tr').first().waitFor();
    // Keyboard: the dialog opens on the first field, Escape closes it, focus goes back to its button.
    const opener = page.getByRole('button', { name: 'New deep link', exact: true });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New deep link', exact: true });
    await dialog.waitFor();
    const destination = dialog.getByRole('textbox', { name: 'Destination URL', exact: true });
    expect(await destination.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await opener.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await opener.click();
    // The app of the deep links listed is preselected; a deep link has no domain to choose.
    expect(await dialog.getByLabel('App', { exact: true }).inputValue()).toBe(app.id);
    expect(await dialog.getByRole('combobox', { name: 'Domain', exact: true }).count()).toBe(0);
    await dialog.getByRole('textbox', { name: 'Short key', exact: true }).fill('deep-console');
    await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('Console deep link');
    await dialog.getByRole('textbox', { name: 'Tags', exact: true }).fill('console, spring');
    await axe();
    await screenshot('deep-link-new');
    await dialog.getByRole('button', { name: 'Create deep link', exact: true }).click();
    await dialog.getByRole('button', { name: 'Copy short link', exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Done', exact: true }).click();

    const created = (await apiGet('/v1/deep-links?search=deep-console')).body.data;
    expect(created).toMatchObject([
      {
        key: 'deep-console',
        linkType: 'DEEPLINK',
        deepLinkAppId: app.id,
        domain: app.domain,
        url: app.defaultUrl,
        title: 'Console deep link',
      },
    ]);
    expect(created[0].tags.map((tag: { name: string }) => tag.name).sort()).toEqual(['console', 'spring']);
    const deepShort: string = created[0].shortLink;

    await page.getByRole('button', { name: `Edit ${deepShort}`, exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit deep link', exact: true });
    await edit.getByRole('textbox', { name: 'Destination URL', exact: true }).fill('https://example.com/deep-edited');
    await edit.getByRole('textbox', { name: 'Title', exact: true }).fill('Console deep link, edited');
    await edit.getByRole('button', { name: 'Save changes', exact: true }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = (await apiGet(`/v1/deep-links/${String(created[0].id)}`)).body.data;
    expect(edited).toMatchObject({
      url: 'https://example.com/deep-edited',
      title: 'Console deep link, edited',
      domain: app.domain,
    });
    await page
      .getByRole('table', { name: 'Deep links', exact: true })
      .getByRole('cell', { name: 'Console deep link, edited', exact: true })
      .waitFor();

    await page.getByRole('button', { name: `Archive ${deepShort}`, exact: true }).click();
    await expect
      .poll(async () => (await apiGet(`/v1/deep-links/${String(created[0].id)}`)).body.data.archived)
      .toBe(true);
    await page.getByRole('checkbox', { name: 'Show archived deep links', exact: true }).check();
    await page.waitForURL(`${b.origin}/console/deep-links?archived=true`);
    await page.getByRole('button', { name: `Restore ${deepShort}`, exact: true }).click();
    await expect
      .poll(async () => (await apiGet(`/v1/deep-links/${String(created[0].id)}`)).body.data.archived)
      .toBe(false);
  });

  it("opens a deep link's page with its launch-view metrics as the API counts them, and its QR code", async () => {
    const deep = await createDeepLink(t.tenantA.workspaceId, { deepLinkAppId: t.tenantA.deepLinkApp.id }, TEST_ORIGIN);
    const fixture: FixtureLink = {
      workspaceId: t.tenantA.workspaceId,
      linkId: deep.id,
      linkType: 'DEEPLINK',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
      domain: deep.domain,
      key: deep.key,
      utmCampaign: null,
    };
    const now = Date.now();
    await getEventSink().send(
      generateFixtureEvents({ now: new Date(now), links: [fixture], perLink: 60, seed: 5 }).filter((e) => {
        const at = Date.parse(e.timestamp);
        return at >= now - 89 * DAY && at <= now - 60_000;
      }),
    );
    const api = (await apiGet(`/v1/analytics/links/${deep.id}?range=90d&traffic=all`)).body.data;
    const metrics = api.launchViewMetrics;
    expect(metrics.impressions).toBeGreaterThan(0);

    await page.goto(`${b.origin}/console/deep-links?q=${deep.key}`);
    await page
      .getByRole('table', { name: 'Deep links', exact: true })
      .getByRole('link', { name: new RegExp(`/${deep.key}$`) })
      .click();
    await page.waitForURL(`${b.origin}/console/deep-links/${deep.id}`);
    await page.getByRole('radiogroup', { name: 'Range' }).getByRole('radio', { name: '90d' }).check();
    await page.getByRole('radiogroup', { name: 'Traffic' }).getByRole('radio', { name: 'All' }).check();
    await page.waitForURL(`${b.origin}/console/deep-links/${deep.id}?range=90d&traffic=all`);
    const launch = page.getByRole('region', { name: 'Launch view', exact: true });
    await expect
      .poll(async () => launch.locator('dd').allTextContents())
      .toEqual(
        [metrics.impressions, metrics.autoOpenAttempts, metrics.primaryClicks, metrics.secondaryClicks].map((n) =>
          new Intl.NumberFormat('en-US').format(n),
        ),
      );
    expect(await page.getByRole('figure', { name: 'Clicks over time', exact: true }).count()).toBe(1);

    // The QR code comes from the deep-link route and decodes to the deep link.
    const png = await download('Download QR code (PNG)');
    expect(png.name).toBe(`${deep.key}-qr.png`);
    const image = PNG.sync.read(png.body);
    expect(jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data).toBe(deep.shortLink);
    await axe();
    await screenshot('deep-link');
  });

  it('lists the domains and shows one as the API returns it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains', exact: true }).click();
    const link = page
      .getByRole('table', { name: 'Domains', exact: true })
      .getByRole('link', { name: t.tenantA.domain });
    await link.waitFor();
    await axe();
    await screenshot('domains');
    await link.click();
    await page.getByRole('heading', { level: 1, name: t.tenantA.domain, exact: true }).waitFor();
    const domains = (await apiGet('/v1/domains')).body.data;
    const domain = domains.find((d: { domain: string }) => d.domain === t.tenantA.domain);
    expect(page.url()).toBe(`${b.origin}/console/domains/${domain.id}`);
    // Every field as the API returns it (a null as a dash, a boolean as Yes or No).
    const shown = await page.locator('dl.details dd').allTextContents();
    const yesNo = (v: boolean) => (v ? 'Yes' : 'No');
    const orDash = (v: string | null) => v ?? '—';
    expect(shown.slice(0, 7)).toEqual([
      domain.id,
      yesNo(domain.primary),
      yesNo(domain.verified),
      yesNo(domain.archived),
      orDash(domain.placeholder),
      orDash(domain.expiredUrl),
      orDash(domain.notFoundUrl),
    ]);
    await axe();
    await screenshot('domain');
  });
});

describe('import', () => {
  it('imports a CSV in chunks through the bulk route, shows each row, and downloads the rows not created', async () => {
    // A key that is already another link's: its row is skipped, and said to be so.
    const other = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/elsewhere', domain: t.tenantA.domain, key: 'taken-key' },
    });
    expect(other.status).toBe(201);
    const file = path.join(tmpdir(), `console-import-${String(process.pid)}.csv`);
    writeFileSync(
      file,
      [
        'long_url,back_half,title,tags',
        'https://example.com/one,imported-one,First,"a,b"',
        'javascript:alert(1),imported-bad,Bad,',
        'https://example.com/three,,Third,',
        'https://example.com/four,taken-key,Fourth,',
      ].join('\n'),
    );
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('combobox', { name: 'Format', exact: true }).selectOption('bitly');
    await page.waitForURL(`${b.origin}/console/import?format=bitly`);
    await page
      .getByRole('combobox', { name: 'Domain', exact: true })
      .locator('option', { hasText: t.tenantA.domain })
      .waitFor({ state: 'attached' });
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(file);
    await axe();
    await page.getByRole('button', { name: 'Import links', exact: true }).click();
    await page
      .getByText("Done: 2 created, 1 skipped (0 imported before, 1 with another link's key), 1 failed (4 rows).")
      .waitFor();
    expect(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value')).toBe('4');
    const results = await rowsOf('Import results');
    expect(results).toHaveLength(4);
    expect(results[0]).toMatch(/^1.*\/imported-oneCreated$/);
    expect(results[1]).toMatch(/^2imported-badFailed: /);
    expect(results[2]).toMatch(/^3.*Created$/);
    expect(results[3]).toMatch(/^4taken-keySkipped: the key is another link's/);

    // The links exist; the slug-less row's key is the CLI's content key (a re-run finds it).
    const one = (await apiGet('/v1/links?search=imported-one')).body.data;
    expect(one).toMatchObject([{ key: 'imported-one', url: 'https://example.com/one', title: 'First' }]);
    expect(one[0].tags.map((tag: { name: string }) => tag.name).sort()).toEqual(['a', 'b']);
    const third = (await apiGet('/v1/links?search=example.com/three')).body.data;
    expect(third).toHaveLength(1);
    expect(third[0].key).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(results[2]).toContain(third[0].key);
    expect(third[0].key).toBe(
      contentKeyOf(mapRow('bitly', { long_url: 'https://example.com/three', back_half: '', title: 'Third', tags: '' })),
    );
    await axe();
    await screenshot('import');

    const failures = await download('Download failures (CSV)');
    const rows: string[][] = parse(failures.body.toString('utf8'));
    expect(rows[0]).toEqual([
      'row',
      'reason',
      'error_code',
      'error_message',
      'error_details',
      'long_url',
      'back_half',
      'title',
      'tags',
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[1]?.slice(0, 3)).toEqual(['2', 'failed', 'invalid_request']);
    expect(rows[1]?.slice(5)).toEqual(['javascript:alert(1)', 'imported-bad', 'Bad', '']);
    expect(rows[2]?.slice(0, 3)).toEqual(['4', 'slug_taken', 'slug_taken']);
    expect(rows[2]?.slice(5)).toEqual(['https://example.com/four', 'taken-key', 'Fourth', '']);

    // The same file again: what it created is skipped as imported before (its key is a link to the
    // row's destination), the other link's key still as another link's, nothing new.
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(file);
    await page.getByRole('button', { name: 'Import links', exact: true }).click();
    await page
      .getByText("Done: 0 created, 3 skipped (2 imported before, 1 with another link's key), 1 failed (4 rows).")
      .waitFor();
    const again = await rowsOf('Import results');
    expect(again[0]).toMatch(/^1imported-oneSkipped: imported before/);
    expect(again[2]).toMatch(/^3[0-9A-Za-z]{10}Skipped: imported before/);
    expect(again[3]).toMatch(/^4taken-keySkipped: the key is another link's/);
    const rerun: string[][] = parse((await download('Download failures (CSV)')).body.toString('utf8'));
    expect(rerun.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['1', 'already_imported', 'slug_taken'],
      ['2', 'failed', 'invalid_request'],
      ['3', 'already_imported', 'slug_taken'],
      ['4', 'slug_taken', 'slug_taken'],
    ]);
    expect((await apiGet('/v1/links?search=example.com/three')).body.data).toHaveLength(1);
    expect((await apiGet('/v1/links?search=taken-key')).body.data).toMatchObject([
      { url: 'https://example.com/elsewhere' },
    ]);
  });
  it('sends a large file 100 rows a request, and counts its progress to the last row', async () => {
    const file = path.join(tmpdir(), `console-import-large-${String(process.pid)}.csv`);
    writeFileSync(
      file,
      [
        'url,key',
        ...Array.from({ length: 205 }, (_, i) => `https://example.com/bulk/${String(i)},bulk-${String(i)}`),
      ].join('\n'),
    );
    // One result per link sent: the answers say how many links each request carried.
    const sizes: Promise<number>[] = [];
    const onResponse = (response: Response) => {
      if (response.request().method() === 'POST' && response.url().endsWith('/v1/links/bulk'))
        sizes.push(response.json().then((body: { data: unknown[] }) => body.data.length));
    };
    page.on('response', onResponse);
    await page.getByRole('combobox', { name: 'Format', exact: true }).selectOption('generic');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(file);
    await page.getByRole('button', { name: 'Import links', exact: true }).click();
    await page
      .getByText("Done: 205 created, 0 skipped (0 imported before, 0 with another link's key), 0 failed (205 rows).")
      .waitFor();
    page.off('response', onResponse);
    expect(await Promise.all(sizes)).toEqual([100, 100, 5]);
    expect(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value')).toBe('205');
    expect(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('max')).toBe('205');
    expect(await rowsOf('Import results')).toHaveLength(205);
    // Nothing failed: nothing to download.
    expect(await page.getByRole('button', { name: 'Download failures (CSV)' }).count()).toBe(0);
    expect((await apiGet('/v1/links?search=bulk-204')).body.data).toHaveLength(1);
  });
});

describe('events', () => {
  it('lists the events of the filters in the address and exports the current query, every page, as the API answers it', async () => {
    // A link with a known week of events: more than one page of the API's (100 a page), customer events included.
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/fixture', domain: t.tenantA.domain, key: 'fixture' },
    });
    const fixture: FixtureLink = {
      workspaceId: t.tenantA.workspaceId,
      linkId: created.body.data.id,
      linkType: 'SHORTLINK',
      deepLinkAppId: null,
      domain: t.tenantA.domain,
      key: 'fixture',
      utmCampaign: 'launch',
    };
    const now = Date.now();
    const events = generateFixtureEvents({ now: new Date(now), links: [fixture], perLink: 200, seed: 11 }).filter(
      (e) => {
        const at = Date.parse(e.timestamp);
        return at >= now - 89 * DAY && at <= now - 60_000;
      },
    );
    await getEventSink().send(events);

    await page.goto(`${b.origin}/console/events?range=90d`);
    const table = page.getByRole('table', { name: 'Events', exact: true });
    await table.locator('tbody tr').nth(49).waitFor();
    expect(await page.getByRole('combobox', { name: 'Event type', exact: true }).inputValue()).toBe('all');
    expect(await page.getByRole('radio', { name: '90d' }).isChecked()).toBe(true);
    await axe();
    await screenshot('events');

    const exported = await download('Export CSV');
    expect(exported.name).toBe('events-90d-all.csv');
    const rows = parse<Record<string, string>>(exported.body.toString('utf8'), { columns: true });
    const fromApi: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const res = await apiGet(
        `/v1/analytics/events?range=90d&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      fromApi.push(...res.body.data);
      cursor = res.body.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(fromApi.length).toBeGreaterThan(100);
    expect(rows).toHaveLength(fromApi.length);
    // Every field of every event, in the API's order; a field an event lacks, or has as null
    // (ruleId and variantId when no rule or variant decided), is an empty cell.
    for (const [i, event] of fromApi.entries()) {
      const row = rows[i] ?? {};
      expect(row.eventId).toBe(event.eventId);
      for (const [field, value] of Object.entries(event))
        expect(row[field]).toBe(value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
      for (const [field, cell] of Object.entries(row)) if (!(field in event)) expect(cell).toBe('');
    }

    // A second page, then the navigation's link: the list starts again at the first page of the
    // address's filters (not with the cursor of the 90 days' pages, which the API would refuse).
    await page.getByRole('button', { name: 'Next page', exact: true }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events', exact: true }).click();
    await page.waitForURL(`${b.origin}/console/events`);
    const week: { eventType: string; sdkEventName?: string | null }[] = (
      await apiGet('/v1/analytics/events?range=7d&limit=50')
    ).body.data;
    expect(week.length).toBeGreaterThan(0);
    await expect
      .poll(async () => table.locator('tbody tr td:nth-child(2)').allTextContents())
      .toEqual(week.map((e) => (e.sdkEventName ? `${e.eventType} (${e.sdkEventName})` : e.eventType)));
    expect(await page.getByText('Page 2', { exact: true }).count()).toBe(0);
    expect(await page.getByText('The events could not be loaded').count()).toBe(0);

    await page.goto(`${b.origin}/console/events?range=90d`);
    await table.locator('tbody tr').nth(49).waitFor();
    await page.getByRole('combobox', { name: 'Event type', exact: true }).selectOption('click');
    await page.waitForURL(`${b.origin}/console/events?range=90d&type=click`);
    await expect
      .poll(async () => (await table.locator('tbody tr').allTextContents()).every((r) => r.includes('click')))
      .toBe(true);
    await page.getByRole('radiogroup', { name: 'Range' }).getByRole('radio', { name: '24h' }).check();
    await page.waitForURL(`${b.origin}/console/events?range=24h&type=click`);
  });

  it("shows a link's conversions (customer events) when it has some", async () => {
    const links = (await apiGet('/v1/links?search=fixture')).body.data;
    await page.goto(`${b.origin}/console/links/${links[0].id}?traffic=all`);
    const conversions = page.getByRole('table', { name: 'Conversions', exact: true });
    await conversions.waitFor();
    const api = (await apiGet(`/v1/analytics/links/${links[0].id}?traffic=all`)).body.data;
    expect(api.customerEvents.length).toBeGreaterThan(0);
    expect(await conversions.locator('tbody tr').count()).toBe(api.customerEvents.length);
    await axe();
    await screenshot('link-analytics-conversions');
  });
});

describe('a read-only key', () => {
  it("sees a link's analytics and QR code but no archive button, and the deep links without write controls", async () => {
    const readOnly = await issueKey({
      workspaceId: t.tenantA.workspaceId,
      kind: 'server',
      name: 'console read-only',
      scopes: ['read'],
    });
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${b.origin}/console/sign-in`);
    await signInToConsole(b, readOnly.key);
    await page.goto(`${b.origin}/console/links/${linkId}`);
    await page
      .getByRole('table', { name: 'Countries', exact: true })
      .getByRole('row', { name: /Germany/ })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Download QR code (PNG)', exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^(Archive|Restore) link$/ }).count()).toBe(0);
    // The deep links: listed, with none of the write controls.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deep links', exact: true }).click();
    await page.getByText('Your key can read deep links but not change them.').waitFor();
    await page.getByRole('table', { name: 'Deep links', exact: true }).locator('tbody tr').first().waitFor();
    expect(await page.getByRole('button', { name: 'New deep link', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Archive|Restore) / }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByText('Your key can read links but not create them').waitFor();
    expect(await page.getByRole('button', { name: 'Import links', exact: true }).isDisabled()).toBe(true);
    await axe();
  });
});

describe('the console build', () => {
  it('keeps every route within the JavaScript budget: the first page plus all the lazy routes together', () => {
    const assets = readdirSync(path.join(consoleDistDir, 'assets')).filter((f) => f.endsWith('.js'));
    const html = readFileSync(path.join(consoleDistDir, 'index.html'), 'utf8');
    const initial = [...html.matchAll(/<script\b[^>]*\bsrc="\/console\/assets\/([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(initial).toHaveLength(1);
    // More than the first chunk: the pages past the links list are chunks of their own.
    expect(assets.length).toBeGreaterThan(initial.length + 4);
    const gzipped = (file: string) => gzipSync(readFileSync(path.join(consoleDistDir, 'assets', file))).length;
    const everything = assets.reduce((sum, file) => sum + gzipped(file), 0);
    expect(everything).toBeLessThanOrEqual(ROUTE_JS_BUDGET);
    expect(gzipped(initial[0] ?? '')).toBeLessThan(everything);
  });

  it('made no request to another origin and logged no error (no CSP violation)', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
