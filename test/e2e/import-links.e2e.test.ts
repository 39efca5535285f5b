import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const fixture = (name: string) => path.join(projectRoot, 'test', 'fixtures', 'import', name);

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  // Slugs the fixtures ask for that another link already holds.
  for (const key of ['taken-bitly', 'taken-rebrandly', 'taken-shortio', 'taken-generic']) {
    const res = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/already-here', domain: t.tenantA.domain, key },
    });
    expect(res.status).toBe(201);
  }
});

/** The admin CLI as a user runs it, against this test file's table. */
const importLinks = async (file: string, format: string, extra: string[] = []) => {
  const args = [
    'scripts/admin.ts',
    'import-links',
    fixture(file),
    '--workspace',
    t.tenantA.workspaceId,
    '--domain',
    t.tenantA.domain,
    '--format',
    format,
    '--json',
    ...extra,
  ];
  const env = { ...process.env, BASE_URL: t.baseUrl, EDGE_URL: t.edgeUrl };
  try {
    const { stdout } = await run(tsx, args, { cwd: projectRoot, env });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    if (!failed.stdout) throw new Error(failed.stderr, { cause: error });
    return { code: failed.code, report: JSON.parse(failed.stdout) };
  }
};
const linkAt = async (key: string) =>
  (
    await http(t.baseUrl, 'GET', `/v1/links?search=${encodeURIComponent(key)}&limit=100`, {
      headers: { 'api-key': t.tenantA.serverKey },
    })
  ).body.data.find((l: { key: string }) => l.key === key);

describe('admin import-links', () => {
  it('imports a Bitly export: back-halves, titles, tags, created dates; reports the taken slug and the bad row; a re-run creates nothing', async () => {
    const first = await importLinks('bitly.csv', 'bitly');
    expect(first.code).toBe(1);
    expect(first.report).toMatchObject({ format: 'bitly', rows: 4, created: 2, skipped: 1, failed: 1 });
    expect(first.report.skippedRows).toEqual([{ row: 4, key: 'taken-bitly', reason: 'slug_taken' }]);
    expect(first.report.failures).toEqual([
      expect.objectContaining({ row: 3, code: 'invalid_request', details: [expect.objectContaining({ path: 'url' })] }),
    ]);
    const sale = await linkAt('spring-sale');
    expect(sale).toMatchObject({
      url: 'https://shop.example.com/spring?ref=mail',
      title: 'Spring sale',
      createdAt: '2024-03-01T10:15:00.000Z',
    });
    expect(sale.tags.map((tag: { name: string }) => tag.name)).toEqual(['promo', 'spring']);
    expect(await linkAt('3xYzAb2')).toMatchObject({
      url: 'https://blog.example.com/post/launch',
      title: 'Launch post, with a comma',
    });
    expect((await linkAt('taken-bitly')).url).toBe('https://example.com/already-here');

    const again = await importLinks('bitly.csv', 'bitly');
    expect(again.report).toMatchObject({ created: 0, skipped: 3, failed: 1 });
    expect(again.report.skippedRows.map((s: { reason: string }) => s.reason)).toEqual([
      'already_imported',
      'already_imported',
      'slug_taken',
    ]);
  });

  it('imports Rebrandly and Short.io exports by their own columns', async () => {
    const rebrandly = await importLinks('rebrandly.csv', 'rebrandly');
    expect(rebrandly.report).toMatchObject({ rows: 4, created: 2, skipped: 1, failed: 1 });
    expect(rebrandly.report.failures[0]).toMatchObject({ row: 3, details: [expect.objectContaining({ path: 'key' })] });
    expect(await linkAt('pricing-2024')).toMatchObject({
      url: 'https://www.example.com/pricing',
      title: 'Pricing',
      createdAt: '2024-01-05T09:00:00.000Z',
    });

    const shortio = await importLinks('shortio.csv', 'shortio');
    expect(shortio.report).toMatchObject({ rows: 4, created: 2, skipped: 1, failed: 1 });
    expect(await linkAt('app')).toMatchObject({ url: 'https://app.example.com/download', title: 'App download' });
    expect(await linkAt('Xy7')).toMatchObject({ url: 'https://app.example.com/features' });
  });

  it('imports a generic CSV; rows without a key get a content-derived key, so duplicates and re-runs create nothing new', async () => {
    const dry = await importLinks('generic.csv', 'generic', ['--dry-run']);
    expect(dry.report).toMatchObject({ dryRun: true, rows: 7, created: 3, skipped: 2, failed: 2 });
    expect(await linkAt('generic-a')).toBeUndefined();

    const first = await importLinks('generic.csv', 'generic');
    expect(first.report).toMatchObject({ dryRun: false, rows: 7, created: 3, skipped: 2, failed: 2 });
    expect(first.report.failures.map((f: { row: number }) => f.row)).toEqual([5, 7]);
    expect(first.report.failures[1].message).toContain('not a date');
    const a = await linkAt('generic-a');
    expect(a.tags.map((tag: { name: string }) => tag.name)).toEqual(['one', 'two']);
    const all = (await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: { 'api-key': t.tenantA.serverKey } }))
      .body.data;
    expect(all.filter((l: { url: string }) => l.url === 'https://example.com/c')).toHaveLength(1);
    expect(all.find((l: { url: string }) => l.url === 'https://example.com/b').key).toMatch(/^[A-Za-z0-9]{10}$/);

    const again = await importLinks('generic.csv', 'generic');
    expect(again.report).toMatchObject({ created: 0, skipped: 5, failed: 2 });
  });

  it('imports rules and variants from a generic CSV (the API JSON in a cell), validated as the API validates them', async () => {
    const { report } = await importLinks('generic-rules.csv', 'generic');
    expect(report).toMatchObject({ rows: 3, created: 1, failed: 2 });
    expect(report.failures).toEqual([
      expect.objectContaining({
        row: 2,
        code: 'invalid_request',
        details: [{ path: 'rules[0].conditions[0].value', message: expect.stringContaining('CIDR') }],
      }),
      expect.objectContaining({ row: 3, code: 'invalid_request', message: 'The rules cell is not JSON' }),
    ]);
    const link = await linkAt('rules-a');
    expect(link.rules).toEqual([
      {
        id: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
        conditions: [{ type: 'country', value: 'DE' }],
        url: 'https://example.com/r-de',
      },
    ]);
    expect(link.variants).toEqual([
      { id: 'a', url: 'https://example.com/r-a', weight: 50 },
      { id: 'b', url: 'https://example.com/r-b', weight: 50 },
    ]);
  });

  it('refuses a format without its URL column, an unknown domain, and an unknown format, writing nothing', async () => {
    await expect(importLinks('bitly.csv', 'rebrandly')).rejects.toThrow(/no destination URL column/);
    await expect(importLinks('generic.csv', 'nope')).rejects.toThrow(/--format must be one of/);
    const otherDomain = [
      'scripts/admin.ts',
      'import-links',
      fixture('generic.csv'),
      '--workspace',
      t.tenantA.workspaceId,
      '--domain',
      t.tenantB.domain,
      '--json',
    ];
    await expect(run(tsx, otherDomain, { cwd: projectRoot, env: process.env })).rejects.toThrow(
      /not a short-link domain/,
    );
  });
});
