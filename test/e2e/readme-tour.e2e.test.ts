import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

/**
 * The README's "Try it" block, run as written with `bash -euo pipefail` against a fresh
 * `npm start` (its own state folder, OS-chosen ports), from a scratch folder as a user would.
 */
const run = promisify(execFile);
const stateDir = mkdtempSync(path.join(tmpdir(), 'linkservice-tour-state-'));
const workDir = mkdtempSync(path.join(tmpdir(), 'linkservice-tour-'));

/** The fenced sh block that follows the README's "Try it" line. */
const tourBlock = (): string => {
  const lines = readFileSync(path.join(projectRoot, 'README.md'), 'utf8').split('\n');
  const tryIt = lines.findIndex((line) => line.startsWith('Try it'));
  const open = lines.findIndex((line, i) => i > tryIt && line.startsWith('```'));
  const close = lines.findIndex((line, i) => i > open && line === '```');
  if (tryIt < 0 || open < 0 || close < 0) throw new Error('README.md has no "Try it" sh block');
  expect(lines[open]).toBe('```sh');
  return lines.slice(open + 1, close).join('\n');
};

/** Variables of the test's own stack that a user's shell does not have. */
const testOnly = new Set([
  'TABLE_NAME',
  'DYNAMODB_ENDPOINT',
  'LOCAL_LAKE_DIR',
  'BASE_URL',
  'EDGE_URL',
  'SHORT_LINK_SCHEME',
  'SHORT_LINK_PORT',
]);

/** A user's shell: none of the test's table settings, Node on the PATH, the local state in the temp folder. */
const userEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !testOnly.has(name))),
  LOCAL_STATE_DIR: stateDir,
  LOG_LEVEL: 'silent',
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
});

let stack: ChildProcess | undefined;
let edgeUrl: string;
let demoDomain: string;

/**
 * `npm start` (scripts/start.ts) with PORT=0 (free ports, nothing to race for), up once it prints
 * its banner. Node runs it with tsx as a loader rather than under the tsx CLI, so the SIGINT that
 * stops it reaches its own handler: the CLI, relaying a signal, kills a child that does not
 * acknowledge it within 30 ms, which would leave its DynamoDB Local running.
 */
beforeAll(async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...userEnv(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack = child;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops everything')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`npm start exited ${String(code)}: ${output}`));
    });
  });
  edgeUrl = (JSON.parse(readFileSync(path.join(stateDir, 'stack.json'), 'utf8')) as { edgeUrl: string }).edgeUrl;
  demoDomain = (JSON.parse(readFileSync(path.join(stateDir, 'credentials.json'), 'utf8')) as { domain: string }).domain;
}, 120_000);

afterAll(async () => {
  const child = stack;
  if (child && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => {
        resolve();
      });
      child.kill('SIGINT');
    });
  }
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

describe('the README tour', () => {
  it('is written to stop at a failing step: every curl fails on an error status, no placeholder to fill in', () => {
    const commands = tourBlock()
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''))
      .filter((line) => !line.startsWith('#'));
    const curls = commands.filter((line) => /\bcurl\b/.test(line));
    expect(curls.length).toBeGreaterThanOrEqual(4);
    for (const line of curls) expect(line, line).toMatch(/curl -sf |curl -s --fail-with-body /);
    for (const line of commands) expect(line, line).not.toMatch(/<\w+>/);
  });

  it('runs top to bottom in bash against npm start: creates, clicks the shortLink it got back, and every step succeeds', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', tourBlock()], {
      cwd: workDir,
      env: userEnv(),
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: unknown) => {
      const e = error as { code: unknown; stdout: string; stderr: string };
      throw new Error(`the tour failed (exit ${String(e.code)})\n--- stdout\n${e.stdout}\n--- stderr\n${e.stderr}`);
    });
    const lines = stdout.split('\n');

    // The create's id and shortLink, captured: the shortLink is the local edge's, plain HTTP on its port.
    const edgePort = new URL(edgeUrl).port;
    const created = lines.find((line) => line.startsWith('lnk_'));
    expect(created).toMatch(/^lnk_\S+ http:\/\/\S+$/);
    const shortLink = created!.split(' ')[1]!;
    expect(shortLink).toMatch(new RegExp(`^http://${demoDomain.replace(/\./g, '\\.')}:${edgePort}/spring-\\d+$`));

    // Clicking it as returned: the redirect, then the geo-targeted one after the PATCH.
    expect(lines).toContain('302 https://example.com/landing?utm_source=news');
    expect(lines).toContain('302 https://example.de/landing?utm_source=news');

    // The rule, then the A/B test: the second click (with the visitor cookie) lands where the first did.
    expect(lines).toContain('302 https://example.com/de?utm_source=news');
    const first = lines
      .find((line) => line.startsWith('first '))
      ?.slice('first '.length)
      .trim();
    expect(first).toMatch(/^https:\/\/example\.com\/[ab]\?utm_source=news$/);
    expect(lines).toContain(`second ${String(first)}`);

    // The JSON answers the block printed, in order: PATCH (geo), PATCH (rules, variants), bulk, client click, list, analytics.
    const bodies = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(bodies).toHaveLength(6);
    expect(bodies.map((body) => body.success)).toEqual([true, true, true, true, true, true]);
    const [patched, ruled, bulk, click, list] = bodies;
    expect(patched.data).toMatchObject({ shortLink, geo: { DE: 'https://example.de/landing' } });
    expect(ruled.data.rules).toEqual([
      { id: expect.any(String), conditions: [{ type: 'language', value: 'de' }], url: 'https://example.com/de' },
    ]);
    expect(ruled.data.variants.map((v: { weight: number }) => v.weight)).toEqual([50, 50]);

    // Bulk: the first item created, with a short link on the local edge; the second refused for the taken key.
    expect(bulk.data).toMatchObject([
      { success: true, data: { shortLink: expect.stringMatching(new RegExp(`^http://[^/]+:${edgePort}/\\w+$`)) } },
      { success: false, error: { code: 'slug_taken' } },
    ]);

    // The QR code encodes the same clickable short link.
    const png = PNG.sync.read(readFileSync(path.join(workDir, 'qr.png')));
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(shortLink);

    // The client click named the link by that shortLink; the list search finds it.
    expect(click.data.clickId).toEqual(expect.any(String));
    expect(list.data.map((link: { shortLink: string }) => link.shortLink)).toEqual([shortLink]);
  }, 180_000);
});
