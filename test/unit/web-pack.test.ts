import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileStrictly, packAndInstall, PUBLISHABLE_FILE } from '@test/support/npm-pack';

/*
 * `npm pack` of @linkservice/web gives a package a site installs: the module, its types and the
 * script tag build, README, LICENSE, and no dependencies; installed into an empty project its
 * types compile under `tsc --strict` without skipLibCheck.
 */

const work = mkdtempSync(path.join(tmpdir(), 'web-pack-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('@linkservice/web as npm packs it', () => {
  it(
    'holds the module, its types, the script, README and LICENSE; no dependencies; its types compile',
    {
      timeout: 180_000,
    },
    async () => {
      const { files, manifest, project } = await packAndInstall('@linkservice/web', work, 'site');
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
      expect(files.filter((file) => !PUBLISHABLE_FILE.test(file))).toEqual([]);
      expect(manifest).toMatchObject({ name: '@linkservice/web', type: 'module', license: 'LicenseRef-Proprietary' });
      expect(manifest.dependencies).toBeUndefined();

      const compiled = await compileStrictly(
        project,
        [
          "import { createTracker, type WebTracker } from '@linkservice/web';",
          "export const tracker: WebTracker = createTracker({ publishableKey: 'pk_x', apiUrl: 'https://api.example.com', consent: 'required' });",
          "tracker.track('sign_up', { plan: 'pro', seats: 3, trial: true });",
          '// @ts-expect-error consent is granted or required',
          "createTracker({ publishableKey: 'pk_x', apiUrl: 'https://api.example.com', consent: 'maybe' });",
          '',
        ].join('\n'),
      );
      expect(compiled).toBe('');
    },
  );
});
