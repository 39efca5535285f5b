import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { startTestStack, type TestStack } from '@test/support/test-stack';

/*
 * @linkservice/sdk under Deno and Bun themselves (the npm packages `deno` and `bun` carry their
 * binaries), against the local stack: the SDK bundled as the ESM a user's bundler or an import
 * map would give those runtimes (esbuild, platform neutral: no Node built-in), and a script that
 * creates, gets and iterates links and catches a 404. Node is covered by test/e2e/sdk.e2e.test.ts,
 * edge runtimes by test/unit/sdk-runtimes.test.ts.
 */

const run = promisify(execFile);
const bin = (name: string) => path.join(projectRoot, 'node_modules', '.bin', name);

let t: TestStack;
let dir: string;
beforeAll(async () => {
  t = await startTestStack();
  dir = mkdtempSync(path.join(tmpdir(), 'sdk-runtimes-'));
  await build({
    entryPoints: [path.join(projectRoot, 'sdk', 'src', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: path.join(dir, 'sdk.mjs'),
    logLevel: 'silent',
  });
  return () => t.stop();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The script each runtime runs: its answers as one JSON line. */
const script = (config: { baseUrl: string; apiKey: string; domain: string; runtime: string }) => `
import { LinkService, LinkServiceError } from './sdk.mjs';
const config = ${JSON.stringify(config)};
const service = new LinkService({ apiKey: config.apiKey, baseUrl: config.baseUrl });
const created = await service.links.create({
  url: 'https://example.com/' + config.runtime,
  domain: config.domain,
  key: 'sdk-' + config.runtime,
});
const got = await service.links.get(created.id);
const keys = [];
for await (const link of service.links.list({ search: 'sdk-' + config.runtime, limit: 1 })) keys.push(link.key);
const missing = await service.links.get('lnk_missing').catch((error) => error);
console.log(JSON.stringify({
  engine: typeof Deno !== 'undefined' ? 'deno' : typeof Bun !== 'undefined' ? 'bun' : 'other',
  created: { key: created.key, url: created.url },
  sameOnGet: got.id === created.id && got.url === created.url,
  keys,
  missing: { isLinkServiceError: missing instanceof LinkServiceError, status: missing.status, code: missing.code },
}));
`;

const runtimes: ReadonlyArray<{ runtime: string; command: (file: string) => { executable: string; args: string[] } }> =
  [
    {
      runtime: 'deno',
      command: (file) => ({ executable: bin('deno'), args: ['run', '--allow-net=127.0.0.1', '--no-prompt', file] }),
    },
    { runtime: 'bun', command: (file) => ({ executable: bin('bun'), args: ['run', file] }) },
  ];

describe('@linkservice/sdk on Deno and Bun', () => {
  for (const { runtime, command } of runtimes) {
    it(`${runtime}: creates, gets and iterates links, and throws LinkServiceError on a 404`, async () => {
      const file = path.join(dir, `${runtime}.mjs`);
      writeFileSync(
        file,
        script({ baseUrl: t.baseUrl, apiKey: t.tenantA.serverKey, domain: t.tenantA.domain, runtime }),
      );
      const { executable, args } = command(file);
      const { stdout } = await run(executable, args, {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, DENO_DIR: path.join(dir, '.deno'), NO_COLOR: '1' },
      });
      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({
        engine: runtime,
        created: { key: `sdk-${runtime}`, url: `https://example.com/${runtime}` },
        sameOnGet: true,
        keys: [`sdk-${runtime}`],
        missing: { isLinkServiceError: true, status: 404, code: 'not_found' },
      });
    });
  }
});
