import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';

const run = promisify(execFile);

// npm's own settings from an `npm test` run (npm_config_*) must not steer the installs below
// (a workspace, a prefix); the cache stays the user's, so installed dependencies come from it.
export const cleanNpmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)),
);

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: cleanNpmEnv,
    maxBuffer: 16 * 1024 * 1024,
  });

/** Files a published package may hold: the built code and its types, README, LICENSE, package.json. */
export const PUBLISHABLE_FILE = /^(LICENSE|README\.md|package\.json|dist\/.+\.(js|d\.ts))$/;

/**
 * `npm pack` of one of the repository's workspaces into `work`, then its tarball installed into a
 * new empty ESM project (`projectName`) as a user installs it: the packed file list, the project's
 * folder, the installed package's folder and its manifest.
 */
export const packAndInstall = async (workspace: string, work: string, projectName: string) => {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work, '--workspace', workspace], projectRoot);
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  if (!pack) throw new Error('npm pack reported no package');
  const project = mkdtempSync(path.join(work, 'project-'));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: projectName, version: '1.0.0', private: true, type: 'module' }),
  );
  await npm(['install', '--prefer-offline', '--ignore-scripts', path.join(work, pack.filename)], project);
  const installed = path.join(project, 'node_modules', ...workspace.split('/'));
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  return { files: pack.files.map((f) => f.path).sort(), project, installed, manifest };
};

/**
 * Compiles `source` as `use.ts` in `project` under `tsc --strict` without skipLibCheck (ES2022 +
 * DOM, NodeNext modules); answers tsc's report, '' when it compiled.
 */
export const compileStrictly = async (project: string, source: string): Promise<string> => {
  writeFileSync(path.join(project, 'use.ts'), source);
  const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    ...['--strict', '--noEmit', '--skipLibCheck', 'false'],
    ...['--target', 'es2022', '--lib', 'es2022,dom', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
    'use.ts',
  ];
  return run(process.execPath, [tsc, ...args], { cwd: project }).then(
    () => '',
    (error: unknown) => (error as { stdout?: string }).stdout ?? String(error),
  );
};
