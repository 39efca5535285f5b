import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

/*
 * `npm pack` of @linkservice/sdk gives a package a project installs: the tarball holds the built
 * code, its types, README, LICENSE and a package.json whose exports point at them; installed into
 * an empty project, it imports and its types compile under `tsc --strict` without skipLibCheck.
 */

const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'sdk-pack-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

// npm's own settings from an `npm test` run (npm_config_*) must not steer the install below
// (a workspace, a prefix); the cache stays the user's, so installed dependencies come from it.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)),
);
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, maxBuffer: 16 * 1024 * 1024 });

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

describe('@linkservice/sdk as npm packs it', () => {
  it(
    'holds dist, types, README, LICENSE and exports; installs and imports; its types compile',
    { timeout: 180_000 },
    async () => {
      const { stdout } = await npm(
        ['pack', '--json', '--pack-destination', work, '--workspace', '@linkservice/sdk'],
        projectRoot,
      );
      const [pack] = JSON.parse(stdout.slice(stdout.indexOf('['))) as PackResult[];
      if (!pack) throw new Error('npm pack reported no package');
      const files = pack.files.map((f) => f.path).sort();
      expect(files).toEqual(
        expect.arrayContaining([
          'LICENSE',
          'README.md',
          'package.json',
          'dist/index.js',
          'dist/index.d.ts',
          'dist/retry.js',
          'dist/retry.d.ts',
          'dist/generated/openapi.d.ts',
        ]),
      );
      // Only what a user needs: no sources, no tsconfig, no tests.
      expect(files.filter((file) => !/^(LICENSE|README\.md|package\.json|dist\/.+\.(js|d\.ts))$/.test(file))).toEqual(
        [],
      );

      const project = mkdtempSync(path.join(work, 'project-'));
      writeFileSync(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'sdk-user', version: '1.0.0', private: true, type: 'module' }),
      );
      await npm(['install', '--prefer-offline', '--ignore-scripts', path.join(work, pack.filename)], project);
      const installed = path.join(project, 'node_modules', '@linkservice', 'sdk');
      const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(manifest).toMatchObject({
        name: '@linkservice/sdk',
        type: 'module',
        license: 'LicenseRef-Proprietary',
        engines: { node: '>=20' },
        exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
      });
      expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toContain('LicenseRef-Proprietary');

      // The installed package imports by its name (exports, dependencies installed with it).
      const script = [
        "import { LinkService, LinkServiceError } from '@linkservice/sdk';",
        "const service = new LinkService({ apiKey: 'sk_x', baseUrl: 'http://127.0.0.1:1' });",
        "console.log(JSON.stringify([typeof service.links.create, typeof service.client.resolve, new LinkServiceError({ status: 404, code: 'not_found', message: 'm' }).code]));",
      ].join('\n');
      const imported = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env });
      expect(JSON.parse(imported.stdout)).toEqual(['function', 'function', 'not_found']);

      // A TypeScript user's view: the shipped types compile strictly, and a wrong call does not.
      writeFileSync(
        path.join(project, 'use.ts'),
        [
          "import { LinkService, type Link } from '@linkservice/sdk';",
          "const service = new LinkService({ apiKey: 'sk_x', baseUrl: 'https://api.example.com' });",
          "export const create = (): Promise<Link> => service.links.create({ url: 'https://example.com', domain: 'go.example.com' });",
          '// @ts-expect-error a create needs url or destinationUrl',
          "export const wrong = (): Promise<Link> => service.links.create({ domain: 'go.example.com' });",
          '',
        ].join('\n'),
      );
      const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      const args = [
        ...['--strict', '--noEmit', '--skipLibCheck', 'false'],
        ...['--target', 'es2022', '--lib', 'es2022,dom', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
        'use.ts',
      ];
      const compiled = await run(process.execPath, [tsc, ...args], { cwd: project }).then(
        () => '',
        (error: unknown) => (error as { stdout?: string }).stdout ?? String(error),
      );
      expect(compiled).toBe('');
    },
  );
});
