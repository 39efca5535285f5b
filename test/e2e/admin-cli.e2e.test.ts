/**
 * The admin CLI and `npm run openapi` as an operator runs them: every failure is one sentence on
 * stderr (with --json one `{"error":{"code","message"}}` line there) and exit code 1; results
 * are text for a person, or one line of JSON with --json.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { projectRoot } from '@shared/local/paths';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { runAdmin, runAdminFailing } from '@test/support/admin-cli';

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: '', edgeUrl: '', name: 'Cli' });
});

/** One line on stderr, nothing on stdout: the shape of every human error. */
const oneSentence = (result: { stdout: string; stderr: string }) => {
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^admin [a-z -]+: .+[.?!]$/);
  return lines[0]!;
};

/** The --json error: one JSON object on stderr, nothing on stdout. */
const jsonError = (result: { stdout: string; stderr: string }) => {
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!);
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message']);
  return parsed.error as { code: string; message: string };
};

// Each run starts a process (tsx, the SDK): seconds apiece on a busy machine.
const SPAWNS = { timeout: 240_000 };

describe('admin CLI errors', SPAWNS, () => {
  it('revoke-key with an unknown key: "no such key", exit 1, never the raw DynamoDB message', async () => {
    const human = await runAdminFailing(['revoke-key', 'sk_not_a_key_anyone_was_given']);
    expect(human.code).toBe(1);
    expect(oneSentence(human)).toMatch(/^admin revoke-key: No such key\b/);
    expect(human.stderr).not.toMatch(/conditional request failed|ConditionalCheckFailed/i);

    const json = await runAdminFailing(['revoke-key', 'sk_not_a_key_anyone_was_given', '--json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toEqual({ code: 'not_found', message: expect.stringMatching(/^No such key\b.*\.$/) });
  });

  it('show-workspace with an unknown workspace: one sentence, exit 1; the same as JSON with --json', async () => {
    const human = await runAdminFailing(['show-workspace', 'ws_missing']);
    expect(human.code).toBe(1);
    expect(oneSentence(human)).toBe('admin show-workspace: No workspace ws_missing.');

    const json = await runAdminFailing(['show-workspace', 'ws_missing', '--json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toEqual({ code: 'not_found', message: 'No workspace ws_missing.' });
  });

  it('malformed options: a bad number, an unknown option, a missing required option, a bad URL', async () => {
    const badNumber = await runAdminFailing(['set-rate-limits', tenant.workspaceId, '--server-per-minute', 'lots']);
    expect(badNumber.code).toBe(1);
    expect(oneSentence(badNumber)).toBe(
      'admin set-rate-limits: --server-per-minute must be a whole number from 1 to 1,000,000 (got lots).',
    );

    const unknownOption = await runAdminFailing(['show-workspace', tenant.workspaceId, '--verbose']);
    expect(unknownOption.code).toBe(1);
    expect(oneSentence(unknownOption)).toMatch(/^admin show-workspace: Unknown option '--verbose'\. See `.*--help`\.$/);
    const unknownJson = await runAdminFailing(['show-workspace', tenant.workspaceId, '--verbose', '--json']);
    expect(jsonError(unknownJson)).toMatchObject({ code: 'usage', message: expect.stringMatching(/--verbose/) });

    const missing = await runAdminFailing(['export-workspace', tenant.workspaceId]);
    expect(missing.code).toBe(1);
    expect(oneSentence(missing)).toMatch(/^admin export-workspace: Required option '--out <dir>' not specified\./);

    const badUrl = await runAdminFailing(['set-domain-urls', tenant.domain, '--not-found-url', 'not-a-url']);
    expect(badUrl.code).toBe(1);
    expect(oneSentence(badUrl)).toBe(
      'admin set-domain-urls: --not-found-url must be an absolute http(s) URL (got not-a-url).',
    );
  });

  it('an AWS failure is a sentence to act on: a table that does not exist', async () => {
    const result = await runAdminFailing(['show-workspace', tenant.workspaceId], { TABLE_NAME: 'no-such-table' });
    expect(result.code).toBe(1);
    expect(oneSentence(result)).toMatch(/^admin show-workspace: Table no-such-table does not exist: check TABLE_NAME/);
    expect(result.stderr).not.toMatch(/ResourceNotFoundException|non-existent table|Requested resource/);
  });
});

describe('admin CLI output', SPAWNS, () => {
  it('set-domain-urls prints text without --json and its JSON with --json', async () => {
    const human = await runAdmin(['set-domain-urls', tenant.domain, '--expired-url', 'https://example.com/gone']);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(() => JSON.parse(human.stdout) as unknown).toThrow();
    expect(human.stdout).toContain(`Fallback URLs of ${tenant.domain} set`);
    expect(human.stdout).toMatch(/^ {2}expired links go to: https:\/\/example\.com\/gone$/m);
    expect(human.stdout).toMatch(/^ {2}unknown keys go to: {2}none\b/m);

    const json = await runAdmin([
      'set-domain-urls',
      tenant.domain,
      '--not-found-url',
      'https://example.com/404',
      '--json',
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      domain: tenant.domain,
      expiredUrl: null,
      notFoundUrl: 'https://example.com/404',
    });
    const host = await domainRepository.findHost(tenant.domain);
    expect(await domainRepository.findById(tenant.workspaceId, host!.domainId)).toMatchObject({
      expiredUrl: null,
      notFoundUrl: 'https://example.com/404',
    });
  });

  it('show-workspace prints aligned key: value lines without --json', async () => {
    const human = await runAdmin(['show-workspace', tenant.workspaceId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Workspace ${tenant.workspaceId}:`);
    expect(human.stdout).toMatch(/^ {2}name: {4}Cli$/m);
    expect(human.stdout).toMatch(/^ {2}serverPerMinute: 3000 \(default\)$/m);
  });
});

describe('npm run openapi', SPAWNS, () => {
  const run = promisify(execFile);
  const out = mkdtempSync(path.join(tmpdir(), 'openapi-'));
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it('prints the document to stdout as JSON, and writes it to a file with --out', async () => {
    const printed = await run('npm', ['run', '-s', 'openapi'], { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 });
    const document = JSON.parse(printed.stdout);
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(document.openapi).toBe('3.1.0');

    const file = path.join(out, 'nested', 'openapi.json');
    const written = await run('npm', ['run', '-s', 'openapi', '--', '--out', file], { cwd: projectRoot });
    expect(written.stdout).toMatch(/^Wrote .*openapi\.json\.\n$/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(document);

    const refused = await run('npm', ['run', '-s', 'openapi', '--', 'stray.json'], { cwd: projectRoot }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^openapi: Too many arguments/) });
  });
});
