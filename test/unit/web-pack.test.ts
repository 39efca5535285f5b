import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

/*
 * `npm pack` of @linkservice/web gives a package a site installs: the module, its types and the
 * script tag build, README, LICENSE, and no dependencies; installed into an empty project its
 * types compile under `tsc --strict` without skipLibCheck.
 */

const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'web-pack-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

// npm's own settings from an `npm test` run (npm_config_*) must not steer the install below.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)),
);
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, maxBuffer: 16 * 1024 * 1024 });

describe('@linkservice/web as npm packs it', () => {
  it(
    'holds the module, its types, the script, README and LICENSE; no dependencies; its types compile',
    {
      timeout: 180_000,
    },
    async () => {
      const { stdout } = await npm(
        ['pack', '--json', '--pack-destination', work, '--workspace', '@linkservice/web'],
        projectRoot,
      );
      const [pack] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      if (!pack) throw new Error('npm pack reported no package');
      const files = pack.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          'LICENSE',
          'README.md',
          'package.json',
          'dist/index.js',
          'dist/index.d.ts',
          'dist/linkservice-web.min.js',
        ]),
      );
      expect(files.filter((file) => !/^(LICENSE|README\.md|package\.json|dist\/.+\.(js|d\.ts))$/.test(file))).toEqual(
        [],
      );

      const project = mkdtempSync(path.join(work, 'project-'));
      writeFileSync(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'site', version: '1.0.0', private: true, type: 'module' }),
      );
      await npm(['install', '--prefer-offline', '--ignore-scripts', path.join(work, pack.filename)], project);
      const installed = path.join(project, 'node_modules', '@linkservice', 'web');
      const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(manifest).toMatchObject({ name: '@linkservice/web', type: 'module', license: 'LicenseRef-Proprietary' });
      expect(manifest.dependencies).toBeUndefined();

      writeFileSync(
        path.join(project, 'use.ts'),
        [
          "import { createTracker, type WebTracker } from '@linkservice/web';",
          "export const tracker: WebTracker = createTracker({ publishableKey: 'pk_x', apiUrl: 'https://api.example.com', consent: 'required' });",
          "tracker.track('sign_up', { plan: 'pro', seats: 3, trial: true });",
          '// @ts-expect-error consent is granted or required',
          "createTracker({ publishableKey: 'pk_x', apiUrl: 'https://api.example.com', consent: 'maybe' });",
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
