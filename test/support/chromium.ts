import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium: the browser tests drive it through playwright-core, which brings no browser of its own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The flags every browser test launches Chromium with: headless as root, and nothing that reaches
 * out (no background networking, updates or sync; every name but loopback fails to resolve, so
 * stores and example.com are never asked).
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.0.0.1',
];

/** An error that prints as its one line: no stack trace to scroll past. */
const oneLineError = (message: string): Error => {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
};

/**
 * The Chromium to launch, or an error of one line that says how to install it. A browser test
 * file calls it first, so a machine without Chromium fails those tests with that line.
 */
export const requireChromium = (executable = CHROMIUM_PATH): string => {
  if (!existsSync(executable))
    throw oneLineError(
      `Chromium is missing (${executable}), the browser tests need it: install it with \`apt-get install chromium\` (.ci/run does).`,
    );
  return executable;
};

/** A headless Chromium with its own profile folder (playwright-core's persistent context). */
export const launchChromium = (
  userDataDir: string,
  options: Omit<NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>, 'executablePath' | 'headless'>,
): Promise<BrowserContext> =>
  chromium.launchPersistentContext(userDataDir, { ...options, executablePath: requireChromium(), headless: true });
