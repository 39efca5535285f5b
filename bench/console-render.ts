/**
 * `npm run bench:console [-- --check]`: how long the web console's links page takes to show 100
 * links, in Chromium against a local stack of its own (in-memory DynamoDB Local, a temporary
 * lake). Each sample opens `/console/links?limit=100` afresh and reads, with the Performance API,
 * the time from the start of that navigation to the moment the table holds its 100 rows. The
 * budget is 1 s; `--check` exits 1 over it.
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

  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await page.goto(`${origin}/console/links?limit=${String(LINKS)}`);
    await page
      .locator('table tbody tr:not(.skeleton-row)')
      .nth(LINKS - 1)
      .waitFor({ state: 'attached' });
    // performance.now() counts from this navigation's start (the document's time origin).
    samples.push(await page.evaluate(() => performance.now()));
  }
  const result = {
    links: LINKS,
    samples: SAMPLES,
    medianMs: Math.round(median(samples)),
    maxMs: Math.round(Math.max(...samples)),
    budgetMs: BUDGET_MS,
  };
  const within = result.medianMs <= BUDGET_MS;
  console.log(
    `console links page, ${String(LINKS)} links: median ${String(result.medianMs)} ms, max ${String(result.maxMs)} ms from navigation to rendered rows (budget ${String(BUDGET_MS)} ms: ${within ? 'within' : 'OVER'})`,
  );
  if (check && !within) process.exitCode = 1;
} finally {
  await browser.close();
  await stack.stop();
  rmSync(lakeDir, { recursive: true, force: true });
}
