import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

/** `npm run smoke -- --local` is part of `npm test`, so the post-deploy smoke test cannot rot. */
describe('npm run smoke -- --local', () => {
  it('passes every step against the local stack and says so per step', async () => {
    const env = {
      ...(process.env as Record<string, string>),
      LOCAL_STATE_DIR: mkdtempSync(path.join(tmpdir(), 'linkservice-smoke-')),
      LOG_LEVEL: 'silent',
    };
    const { stdout } = await run(tsx, ['scripts/smoke.ts', '--local', '--json'], {
      cwd: projectRoot,
      env,
      timeout: 150_000,
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      pass: boolean;
      steps: Array<{ step: string; pass: boolean; detail: string }>;
    };
    expect(report.steps.filter((s) => !s.pass)).toEqual([]);
    expect(report.pass).toBe(true);
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
      'archive what the smoke test made',
    ]);
  }, 180_000);
});
