import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { freePort, portInUse } from '@shared/local/ports';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { waitUntil } from '@test/support/wait-until';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/**
 * A user's shell running `npm start`: none of the test's own settings (table, endpoint, the
 * silenced logs and metrics of the test environment), its own state folder and ports.
 */
const userEnv = (stateDir: string, extra: Record<string, string>): Record<string, string> => {
  const testOnly = new Set([
    'TABLE_NAME',
    'DYNAMODB_ENDPOINT',
    'LOCAL_LAKE_DIR',
    'BASE_URL',
    'EDGE_URL',
    'LOG_LEVEL',
    'POWERTOOLS_METRICS_DISABLED',
    'LOCAL_LOG_FORMAT',
  ]);
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !testOnly.has(entry[0]),
  );
  return { ...Object.fromEntries(inherited), LOCAL_STATE_DIR: stateDir, ...extra };
};

interface NpmStart {
  npm: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: ChildProcess[] = [];
afterAll(() => {
  // Only for a test that failed half-way: each npm start runs in a process group of its own,
  // which holds whatever it left behind even once npm itself has exited.
  for (const npm of started) {
    try {
      if (npm.pid) process.kill(-npm.pid, 'SIGKILL');
    } catch {
      // The group is gone: nothing was left behind.
    }
  }
});

/** `npm start` as a user types it; resolves once it says it runs, or rejects with its output if it exits first. */
const npmStart = (env: Record<string, string>, waitForStart = true): Promise<NpmStart> => {
  const npm = spawn('npm', ['start'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(npm);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => {
      resolve({ code, signal });
    }),
  );
  const result: NpmStart = { npm, output: () => output, exited };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (waitForStart && output.includes('Ctrl-C stops everything')) resolve(result);
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', onData);
    void exited.then(() => {
      if (waitForStart) reject(new Error(`npm start exited before it ran:\n${output}`));
      else resolve(result);
    });
  });
};

/** Distinct free ports, chosen by the OS. */
const freePorts = async (count: number): Promise<number[]> => {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
};

/** Processes whose command line names the state folder: DynamoDB Local's JVM (its -dbPath). */
const processesOf = (stateDir: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(stateDir));

describe('npm start stopped by a signal to the npm process', () => {
  it('SIGTERM to npm alone stops everything, DynamoDB Local included; a new start comes up on the same ports', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'linkservice-signals-'));
    const [api, edge, dynamo] = (await freePorts(3)) as [number, number, number];
    const ports = { PORT: String(api), EDGE_PORT: String(edge), DYNAMODB_PORT: String(dynamo) };
    const portsFree = async () => [await portInUse(api), await portInUse(edge), await portInUse(dynamo, '0.0.0.0')];

    const first = await npmStart(userEnv(stateDir, ports));
    const credentials = JSON.parse(readFileSync(path.join(stateDir, 'credentials.json'), 'utf8')) as {
      baseUrl: string;
      edgeUrl: string;
      serverKey: string;
      domain: string;
    };
    expect(credentials.baseUrl).toBe(`http://127.0.0.1:${api}`);
    expect(credentials.edgeUrl).toBe(`http://127.0.0.1:${edge}`);
    const created = await http(credentials.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': credentials.serverKey, 'x-request-id': 'signals-create-1' },
      json: { url: 'https://example.com/signals', domain: credentials.domain, key: 'signals' },
    });
    expect(created.status).toBe(201);
    const click = () =>
      edgeRequest(credentials.edgeUrl, {
        host: credentials.domain,
        path: '/signals',
        headers: { 'user-agent': IPHONE },
      });
    const firstClick = await click();
    expect(firstClick.status).toBe(302);

    process.kill(first.npm.pid!, 'SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await portsFree()).toEqual([false, false, false]);
    expect(processesOf(stateDir)).toEqual([]);
    expect(existsSync(path.join(stateDir, 'stack.json'))).toBe(false);

    // The local logs: one line per request, no metrics records, no INFO lines.
    const lines = first.output().split('\n');
    expect(lines.filter((l) => l.startsWith('POST /v1/links '))).toEqual([
      expect.stringMatching(/^POST \/v1\/links 201 \d+ms req=signals-create-1$/),
    ]);
    const clickId = firstClick.headers['x-request-id'];
    expect(clickId).toEqual(expect.any(String));
    const domain = credentials.domain.replace(/\./g, '\\.');
    expect(lines.filter((l) => l.startsWith('edge GET '))).toEqual([
      expect.stringMatching(new RegExp(`^edge GET ${domain}:${edge}/signals 302 \\d+ms req=${String(clickId)}$`)),
    ]);
    expect(first.output()).not.toContain('"_aws"');
    expect(first.output()).not.toContain('"level":"INFO"');

    // Again on the same ports, with the metrics records (LOG_LEVEL=debug): the data is kept.
    const again = await npmStart(userEnv(stateDir, { ...ports, LOG_LEVEL: 'debug' }));
    const got = await http(credentials.baseUrl, 'GET', `/v1/links/${created.body.data.id}`, {
      headers: { 'api-key': credentials.serverKey },
    });
    expect(got.status).toBe(200);
    // The first run's click may or may not have been counted before it stopped: wait for this one.
    const clicksBefore = got.body.data.clicks as number;
    const secondClick = await click();
    expect(secondClick.status).toBe(302);

    // The click metrics are written by the counter consumer once it has counted the batch.
    await waitUntil(async () => {
      const link = await http(credentials.baseUrl, 'GET', `/v1/links/${created.body.data.id}`, {
        headers: { 'api-key': credentials.serverKey },
      });
      return link.body.data.clicks > clicksBefore;
    }, 'the click counted by the counter consumer');
    process.kill(again.npm.pid!, 'SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    expect(await portsFree()).toEqual([false, false, false]);
    expect(processesOf(stateDir)).toEqual([]);
    const metrics = again
      .output()
      .split('\n')
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // No metrics record per click; the consumer's batch record counts it.
    expect(metrics.filter((m) => m.requestId === secondClick.headers['x-request-id'])).toEqual([]);
    expect(metrics).toContainEqual(expect.objectContaining({ Outcome: 'redirect', Redirects: 1 }));
  }, 240_000);
});

describe('npm start on a port in use', () => {
  it('says which port, how to free it and which setting moves it, in one line, and starts nothing', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'linkservice-busy-'));
    const [api, edge, dynamo] = (await freePorts(3)) as [number, number, number];
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(dynamo, '127.0.0.1', resolve));
    try {
      const run = await npmStart(
        userEnv(stateDir, { PORT: String(api), EDGE_PORT: String(edge), DYNAMODB_PORT: String(dynamo) }),
        false,
      );
      expect(await run.exited).toEqual({ code: 1, signal: null });
      const errors = run
        .output()
        .split('\n')
        .filter((l) => l.includes('in use'));
      expect(errors).toEqual([
        `Port ${dynamo} is in use (another npm start?). Stop that process (e.g. \`lsof -i :${dynamo}\` / \`fuser -k ${dynamo}/tcp\`) or set DYNAMODB_PORT=<another port>.`,
      ]);
      expect(run.output()).not.toContain('EADDRINUSE');
      expect(processesOf(stateDir)).toEqual([]);
      expect([await portInUse(api), await portInUse(edge)]).toEqual([false, false]);
    } finally {
      blocker.close();
    }
  }, 120_000);
});
