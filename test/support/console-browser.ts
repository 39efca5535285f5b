/**
 * What the console's browser tests share: Chromium on the local stack's console (localhost, not
 * 127.0.0.1: browsers count it a secure context, which `__Host-` cookies need), the problems the
 * page logged, the requests it made to another origin, axe-core's serious and critical
 * violations, and screenshots under test/artifacts/console/ (CI keeps them).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_ARGS, launchChromium } from './chromium';

export const CONSOLE_ARTIFACTS = path.resolve('test/artifacts/console');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** The console's origin: the stack's API on localhost. */
  origin: string;
  /** Console messages (errors, warnings) and page errors: a CSP violation or a crash shows here. */
  problems: string[];
  /** Requests the page made to any other origin than the console's. */
  foreign: string[];
  close(): Promise<void>;
}

export const openConsoleBrowser = async (baseUrl: string): Promise<ConsoleBrowser> => {
  const origin = baseUrl.replace('//127.0.0.1:', '//localhost:');
  await mkdir(CONSOLE_ARTIFACTS, { recursive: true });
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'console-chromium-'));
  const context = await launchChromium(userDataDir, {
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
  });
  return {
    context,
    page,
    origin,
    problems,
    foreign,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
};

/** axe-core on the page as it is now: the serious and critical violations (none expected). */
export const seriousViolations = async (page: Page): Promise<string[]> => {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply.
  await page.evaluate(AXE_SOURCE);
  // Page code as strings: this project is type-checked without the DOM's types.
  const violations: { id: string; impact: string | null; targets: unknown[] }[] = await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target) })))`,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${String(v.impact)}): ${JSON.stringify(v.targets)}`);
};

/** A full-page screenshot under test/artifacts/console/<name>.png. */
export const consoleScreenshot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(CONSOLE_ARTIFACTS, `${name}.png`), fullPage: true });

/** Signs in through the sign-in page with a server key, and waits for the links page. */
export const signInToConsole = async (browser: ConsoleBrowser, apiKey: string): Promise<void> => {
  const { page, origin } = browser;
  await page.goto(`${origin}/console/sign-in`);
  await page.getByRole('textbox', { name: 'API key', exact: true }).fill(apiKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${origin}/console/links`);
};
