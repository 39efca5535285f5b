import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { collectWorkspaceItems } from '@shared/admin/workspace-items';
import { projectRoot } from '@shared/local/paths';
import { CLEANUP_STEP, DIRECT_ACCESS_STEP } from '../../scripts/smoke-steps';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

interface Report {
  pass: boolean;
  failedStep?: string;
  reason?: string;
  steps: Array<{ step: string; pass: boolean; detail: string }>;
}

/**
 * Runs the smoke script against a local stack it starts on this test file's table (TABLE_NAME,
 * DYNAMODB_ENDPOINT and LOCAL_LAKE_DIR of the test environment), so the table can be read after.
 */
const smoke = async (args: string[], extraEnv: Record<string, string | undefined> = {}) => {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    LOCAL_STATE_DIR: mkdtempSync(path.join(tmpdir(), 'linkservice-smoke-')),
    LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) env[k] = v;
  try {
    const { stdout } = await run(tsx, ['scripts/smoke.ts', ...args], { cwd: projectRoot, env, timeout: 150_000 });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '' };
  }
};
const lastLine = (stdout: string) => stdout.trim().split('\n').at(-1) ?? '';
const workspaceOf = (report: Report) => report.steps.find((s) => s.step === 'provision a throwaway workspace')?.detail;

/** `npm run smoke -- --local` is part of `npm test`, so the post-deploy smoke test cannot rot. */
describe('npm run smoke -- --local', () => {
  it('passes every step against the local stack, the origin refusing direct requests, and leaves nothing behind', async () => {
    const { code, stdout } = await smoke(['--local', '--json']);
    const report = JSON.parse(lastLine(stdout)) as Report;
    expect(report.steps.filter((s) => !s.pass)).toEqual([]);
    expect(report.pass).toBe(true);
    expect(code).toBe(0);
    expect(report.steps.map((s) => s.step)).toEqual([
      'provision a throwaway workspace',
      'create a short link (POST /v1/links)',
      'create a deep link (POST /v1/deep-links)',
      'a link on the click domain',
      'click through the front door: 302 to the destination',
      'click counters moved (within 60 s)',
      'client click (POST /v1/client/attribution/click)',
      'legacy create (POST /api/mobile/link/create)',
      'analytics (GET /v1/analytics/links/{id}: 200, or 503 before Athena has data)',
      'raw export (GET /v1/analytics/events)',
      DIRECT_ACCESS_STEP,
      CLEANUP_STEP,
    ]);
    expect(report.steps.find((s) => s.step === DIRECT_ACCESS_STEP)?.detail).toMatch(/^127\.0\.0\.1:\d+ 403$/);
    const workspaceId = workspaceOf(report);
    expect(workspaceId).toMatch(/^ws_/);
    // The workspace, its keys, links, domains and apps are gone from the table.
    expect((await collectWorkspaceItems(workspaceId!)).items).toEqual([]);
  }, 180_000);

  it('exits 1 naming the failing step, and still erases the throwaway workspace', async () => {
    const failing = 'create a short link (POST /v1/links)';
    const { code, stdout } = await smoke(['--local'], { SMOKE_FAIL_STEP: failing });
    expect(code).toBe(1);
    expect(lastLine(stdout)).toMatch(
      /^FAIL: create a short link \(POST \/v1\/links\): failed on purpose \(a test of the smoke test\)/,
    );
    expect(stdout).toMatch(new RegExp(`^PASS  ${CLEANUP_STEP}  \\((ws_\\w+): \\d+ items erased\\)$`, 'm'));
    const workspaceId = /^PASS {2}provision a throwaway workspace {2}\((ws_\w+)\)$/m.exec(stdout)?.[1];
    expect(workspaceId).toBeDefined();
    expect((await collectWorkspaceItems(workspaceId!)).items).toEqual([]);
  }, 180_000);

  it('refuses to guess the region of a deployed stack', async () => {
    const { code, stdout } = await smoke(['--stack', 'LinkService', '--domain', 'go.example.com'], {
      AWS_REGION: undefined,
      AWS_DEFAULT_REGION: undefined,
    });
    expect(code).toBe(1);
    expect(lastLine(stdout)).toBe(
      'FAIL: set up: Pass --region or set AWS_REGION: the smoke test never guesses the region',
    );
  });
});
