import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

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
  const { stdout } = await run(tsx, ['scripts/admin.ts', ...args, '--json'], {
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
    const { stdout, stderr } = await run(tsx, ['scripts/admin.ts', ...args], {
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
