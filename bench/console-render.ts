/**
 * `npm run bench:console [-- --check]`: how long the web console's pages take to render, in
 * Chromium against a local stack of its own (in-memory DynamoDB Local, a temporary lake): the
 * links page with 100 links (`/console/links?limit=100`, until the table holds its 100 rows) and a
 * link's analytics page over 90 days (`/console/links/<id>?range=90d`, a lazy route: until the
 * chart is drawn and its table holds its 90 days). Each sample opens the page afresh and reads,
 * with the Performance API, the time from the start of that navigation. The budget is 1 s for
 * each page; `--check` exits 1 over it.
 */
import '@shared/local/local-logging';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { ensureConsoleBuilt } from '@shared/local/console-build';
import { startLocalStack } from '@shared/local/local-stack';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@test/support/chromium';

const BUDGET_MS = 1000;
const SAMPLES = 7;
const LINKS = 100;
const check = process.argv.includes('--check');

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

ensureConsoleBuilt((line) => process.stderr.write(`${line}\n`));
const lakeDir = mkdtempSync(path.join(tmpdir(), 'bench-console-lake-'));
const stack = await startLocalStack({ port: 0, edgePort: 0, lakeDir });
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS],
});
try {
  const tenant = await bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl, name: 'Console bench' });
  const created = await fetch(`${stack.baseUrl}/v1/links/bulk`, {
    method: 'POST',
    headers: {
      'api-key': tenant.serverKey,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify({
      links: Array.from({ length: LINKS }, (_, i) => ({
        url: `https://example.com/products/${String(i)}?ref=bench`,
        domain: tenant.domain,
        title: `Bench link ${String(i)}`,
        tags: ['bench', `group-${String(i % 5)}`],
      })),
    }),
  });
  if (!created.ok) throw new Error(`bulk create answered ${String(created.status)}: ${await created.text()}`);

  // localhost: the session cookie (`__Host-`) needs a secure context.
  const origin = stack.baseUrl.replace('//127.0.0.1:', '//localhost:');
  const page = await browser.newPage();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByRole('textbox', { name: 'API key', exact: true }).fill(tenant.serverKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${origin}/console/links`);

  /** The median and worst time from navigation to `ready` on `url`, over SAMPLES fresh loads. */
  const measure = async (name: string, url: string, ready: () => Promise<void>) => {
    const samples: number[] = [];
    const api: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await page.goto(url);
      await ready();
      // performance.now() counts from this navigation's start (the document's time origin).
      samples.push(await page.evaluate(() => performance.now()));
      // How much of it the API took: the longest of the page's requests to /v1.
      api.push(
        await page.evaluate(() =>
          Math.max(
            0,
            ...performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('/v1/'))
              .map((e) => e.duration),
          ),
        ),
      );
    }
    const medianMs = Math.round(median(samples));
    const within = medianMs <= BUDGET_MS;
    console.log(
      `console ${name}: median ${String(medianMs)} ms, max ${String(Math.round(Math.max(...samples)))} ms from navigation to rendered page, of which the slowest API request ${String(Math.round(median(api)))} ms (budget ${String(BUDGET_MS)} ms: ${within ? 'within' : 'OVER'})`,
    );
    return within;
  };

  const linksWithin = await measure(
    `links page, ${String(LINKS)} links`,
    `${origin}/console/links?limit=${String(LINKS)}`,
    () =>
      page
        .locator('table tbody tr:not(.skeleton-row)')
        .nth(LINKS - 1)
        .waitFor({ state: 'attached' }),
  );
  const firstLink = ((await created.json()) as { data: { success: boolean; data?: { id: string } }[] }).data[0]?.data;
  if (!firstLink) throw new Error('bulk create made no link');
  const linkWithin = await measure(
    "a link's analytics page, 90 days",
    `${origin}/console/links/${firstLink.id}?range=90d`,
    async () => {
      await page.locator('.chart canvas').waitFor({ state: 'attached' });
      await page.locator('table[aria-label="Clicks over time, data"] tbody tr').nth(89).waitFor({ state: 'attached' });
    },
  );
  if (check && !(linksWithin && linkWithin)) process.exitCode = 1;
} finally {
  await browser.close();
  await stack.stop();
  rmSync(lakeDir, { recursive: true, force: true });
}
