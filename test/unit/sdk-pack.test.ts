import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanNpmEnv, compileStrictly, packAndInstall, PUBLISHABLE_FILE } from '@test/support/npm-pack';

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

describe('@linkservice/sdk as npm packs it', () => {
  it(
    'holds dist, types, README, LICENSE and exports; installs and imports; its types compile',
    { timeout: 180_000 },
    async () => {
      const { files, manifest, project, installed } = await packAndInstall('@linkservice/sdk', work, 'sdk-user');
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
      expect(files.filter((file) => !PUBLISHABLE_FILE.test(file))).toEqual([]);

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
      const imported = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        env: cleanNpmEnv,
      });
      expect(JSON.parse(imported.stdout)).toEqual(['function', 'function', 'not_found']);

      // A TypeScript user's view: the shipped types compile strictly, and a wrong call does not.
      const compiled = await compileStrictly(
        project,
        [
          "import { LinkService, type Link } from '@linkservice/sdk';",
          "const service = new LinkService({ apiKey: 'sk_x', baseUrl: 'https://api.example.com' });",
          "export const create = (): Promise<Link> => service.links.create({ url: 'https://example.com', domain: 'go.example.com' });",
          '// @ts-expect-error a create needs url or destinationUrl',
          "export const wrong = (): Promise<Link> => service.links.create({ domain: 'go.example.com' });",
          '',
        ].join('\n'),
      );
      expect(compiled).toBe('');
    },
  );
});
