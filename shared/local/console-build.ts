/**
 * Builds the web console (console/ -> console/dist) when it is missing or older than its sources,
 * for `npm start` and the browser tests: the README's commands need no build step of their own.
 * The build goes to a folder of its own and replaces console/dist when complete, so a server
 * never serves half a build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths';

export const consoleDir = path.join(projectRoot, 'console');
export const consoleDistDir = path.join(consoleDir, 'dist');
const sdkDist = path.join(projectRoot, 'sdk', 'dist', 'index.js');
/** Modules of the service the console's bundle includes (the importer's CSV format mapping). */
const sharedSources = ['shared/import/csv-formats.ts', 'shared/util/canonical-json.ts'].map((p) =>
  path.join(projectRoot, p),
);

/** The newest modification time of the files under `dir` (0 when there is none). */
const newest = (dir: string): number => {
  if (!existsSync(dir)) return 0;
  const info = statSync(dir);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(dir).reduce((max, name) => Math.max(max, newest(path.join(dir, name))), 0);
};

/** Whether console/dist is missing or older than a source of the console. */
export const consoleBuildStale = (): boolean => {
  const built = path.join(consoleDistDir, 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'].map((p) =>
    newest(path.join(consoleDir, p)),
  );
  return Math.max(...sources, ...sharedSources.map(newest), newest(sdkDist)) > statSync(built).mtimeMs;
};

const npm = (args: string[]) => {
  // A production build whoever asks: under the test runner NODE_ENV is `test`, with which Vite
  // would bundle React's development build (larger and slower than what is deployed).
  const result = spawnSync('npm', args, {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed (exit ${String(result.status)})`);
};

/** Builds the console unless console/dist is up to date; `log` says when it does. */
export const ensureConsoleBuilt = (log: (line: string) => void = console.log): void => {
  if (!consoleBuildStale()) return;
  log('Building the web console (console/dist)...');
  if (!existsSync(sdkDist)) npm(['run', 'build', '-w', '@linkservice/sdk']);
  const temp = path.join(consoleDir, `dist.tmp-${String(process.pid)}`);
  try {
    npm(['run', 'build', '--silent', '-w', '@linkservice/console', '--', '--outDir', temp, '--logLevel', 'warn']);
    rmSync(consoleDistDir, { recursive: true, force: true });
    renameSync(temp, consoleDistDir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
};
