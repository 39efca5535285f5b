import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { projectRoot } from '@shared/local/paths';

const execFileAsync = promisify(execFile);

let bundled: Promise<string> | undefined;
/**
 * scripts/admin.ts bundled by esbuild (which is also what tsx transpiles with), once per test
 * file: each run then starts plain Node instead of tsx, which transpiles the CLI's few hundred
 * modules at every start (seconds apiece on a busy machine). Packages stay external, resolved
 * from node_modules as under tsx. The file sits two folders below the project root, as the
 * sources do, so `projectRoot` (shared/local/paths.ts) resolves the same; one per process, so
 * parallel test workers never write the same file.
 */
const cliBundle = (): Promise<string> =>
  (bundled ??= (async () => {
    const outfile = path.join(projectRoot, 'node_modules', '.cache', `admin-cli-${process.pid}.mjs`);
    await build({
      entryPoints: [path.join(projectRoot, 'scripts', 'admin.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      packages: 'external',
      tsconfig: path.join(projectRoot, 'tsconfig.json'),
      logLevel: 'error',
    });
    return outfile;
  })());

/** Runs the bundled CLI with these arguments. */
const run = async (args: string[], options: { cwd: string; env: Record<string, string>; maxBuffer: number }) =>
  execFileAsync(process.execPath, [await cliBundle(), ...args], options);

/** The test process's environment, quiet (the CLI itself drops the local server's Lambda marker: scripts/admin/operator-env.ts). */
const operatorEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  LOG_LEVEL: 'silent',
  ...extra,
});

/**
 * Runs the admin CLI as an operator would (`npm run -s admin -- <args> --json`) against this
 * test file's table (TABLE_NAME / DYNAMODB_ENDPOINT / LOCAL_LAKE_DIR of the test environment),
 * and returns its one line of JSON.
 */
export const runAdminJson = async <T = any>(args: string[], env: Record<string, string> = {}): Promise<T> => {
  const { stdout } = await run([...args, '--json'], {
    cwd: projectRoot,
    env: operatorEnv(env),
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
};

/** Runs the admin CLI as given (no --json added) and returns its exit code and both streams, success or not. */
export const runAdmin = async (
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> => {
  try {
    const { stdout, stderr } = await run(args, {
      cwd: projectRoot,
      env: operatorEnv(env),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
};

/** The same, expecting a failure: its exit code and stderr. */
export const runAdminFailing = async (
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> => {
  const result = await runAdmin(args, env);
  if (result.code === 0) throw new Error(`admin ${args.join(' ')} succeeded`);
  return result;
};
