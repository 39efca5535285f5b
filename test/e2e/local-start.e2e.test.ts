import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { http } from '@test/support/http-client';

const run = promisify(execFile);
const stateDir = mkdtempSync(path.join(tmpdir(), 'linkservice-start-'));
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

/** The environment of a new user's shell: none of the test's own table settings. */
const TEST_SETTINGS = new Set(['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'LOCAL_LAKE_DIR', 'BASE_URL', 'EDGE_URL']);
const userEnv = (extra: Record<string, string>) =>
  Object.fromEntries(
    Object.entries({ ...process.env, LOCAL_STATE_DIR: stateDir, LOG_LEVEL: 'silent', ...extra }).filter(
      ([k]) => !TEST_SETTINGS.has(k),
    ),
  );

/** Starts `npm start` on OS-chosen ports (PORT=0: nothing to race for) and reads where it listens. */
const startService = async () => {
  const child = spawn(tsx, ['scripts/start.ts'], {
    cwd: projectRoot,
    env: userEnv({ PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`npm start did not come up: ${output}`));
    }, 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops everything')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`exited ${code}: ${output}`));
    });
  });
  const state = JSON.parse(readFileSync(path.join(stateDir, 'stack.json'), 'utf8')) as {
    baseUrl: string;
    edgeUrl: string;
  };
  return { child, output, ...state };
};

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
    child.kill('SIGINT');
  });

let running: ChildProcess | undefined;
afterAll(() => {
  running?.kill('SIGKILL');
});

describe('npm start, admin bootstrap, restart', () => {
  it('starts the stack with a demo tenant, bootstraps another tenant into it, stops cleanly and keeps data', async () => {
    const first = await startService();
    running = first.child;
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.output).toContain(first.baseUrl);
    expect(first.output).toContain(first.edgeUrl);

    const credentials = JSON.parse(readFileSync(path.join(stateDir, 'credentials.json'), 'utf8'));
    expect(Object.keys(credentials).sort()).toEqual(
      [
        'baseUrl',
        'edgeUrl',
        'workspaceId',
        'serverKey',
        'mobileKey',
        'domain',
        'domainId',
        'deepLinkApp',
        'publishableKeys',
      ].sort(),
    );
    expect(Object.keys(credentials.deepLinkApp).sort()).toEqual(['appKey', 'defaultUrl', 'domain', 'id']);
    expect(credentials.publishableKeys.browser).toEqual({
      key: expect.stringMatching(/^pk_/),
      environment: expect.any(String),
      origin: expect.any(String),
    });
    expect(Object.keys(credentials.publishableKeys.android).sort()).toEqual([
      'environment',
      'key',
      'package',
      'sha256Cert',
    ]);
    expect(Object.keys(credentials.publishableKeys.ios).sort()).toEqual(['bundleId', 'environment', 'key']);
    expect(credentials.baseUrl).toBe(first.baseUrl);

    const created = await http(credentials.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': credentials.serverKey },
      json: { url: 'https://example.com/persist', domain: credentials.domain },
    });
    expect(created.status).toBe(201);

    const { stdout } = await run(tsx, ['scripts/admin.ts', 'bootstrap', '--json'], {
      cwd: projectRoot,
      env: userEnv({}),
    });
    const second = JSON.parse(stdout);
    expect(second.workspaceId).not.toBe(credentials.workspaceId);
    expect(second.baseUrl).toBe(credentials.baseUrl);
    const other = await http(credentials.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': second.serverKey },
      json: { url: 'https://example.com/second', domain: second.domain },
    });
    expect(other.status).toBe(201);

    // admin set-app: a deep-link app's platform settings, validated and normalised.
    const cert = 'ab'.repeat(32);
    const setApp = await run(
      tsx,
      [
        'scripts/admin.ts',
        'set-app',
        second.deepLinkApp.domain,
        '--ios-url-scheme',
        'MyApp',
        '--android-cert',
        cert,
        '--pasteboard-handoff',
        'on',
        '--json',
      ],
      {
        cwd: projectRoot,
        env: userEnv({}),
      },
    );
    expect(JSON.parse(setApp.stdout)).toMatchObject({
      domain: second.deepLinkApp.domain,
      ios: { urlScheme: 'myapp', pasteboardHandoff: true },
      android: { sha256CertFingerprints: [Array(32).fill('AB').join(':')] },
    });
    await expect(
      run(tsx, ['scripts/admin.ts', 'set-app', second.deepLinkApp.domain, '--android-cert', 'AB:CD'], {
        cwd: projectRoot,
        env: userEnv({}),
      }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('sha256CertFingerprints.0: must be 32 bytes of hex'),
    });

    expect(await stop(first.child)).toBe(0);
    expect(existsSync(path.join(stateDir, 'stack.json'))).toBe(false);
    await expect(fetch(`${credentials.baseUrl}/v1/links/x`)).rejects.toThrow();

    // The restart takes whatever ports are free now; the data is what must survive.
    const again = await startService();
    running = again.child;
    const got = await http(again.baseUrl, 'GET', `/v1/links/${created.body.data.id}`, {
      headers: { 'api-key': credentials.serverKey },
    });
    expect(got.status).toBe(200);
    expect(got.body.data.url).toBe('https://example.com/persist');
    expect(await stop(again.child)).toBe(0);
    running = undefined;
  }, 180_000);
});

describe('npm start that fails', () => {
  it('stops everything it started (no orphaned DynamoDB Local) when its port is taken', async () => {
    const failDir = mkdtempSync(path.join(tmpdir(), 'linkservice-start-fail-'));
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const child = spawn(tsx, ['scripts/start.ts'], {
        cwd: projectRoot,
        env: { ...userEnv({ PORT: String(port), EDGE_PORT: '0' }), LOCAL_STATE_DIR: failDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const code = await new Promise<number | null>((resolve) =>
        child.once('exit', (c) => {
          resolve(c);
        }),
      );
      expect(code).not.toBe(0);
      expect(output).toContain(`Port ${port} is in use (another npm start?)`);
      expect(existsSync(path.join(failDir, 'stack.json'))).toBe(false);
      // DynamoDB Local was started with this state dir's data folder; no process may still hold it.
      const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
      expect(processes.split('\n').filter((line) => line.includes(failDir))).toEqual([]);
    } finally {
      blocker.close();
    }
  }, 180_000);
});
