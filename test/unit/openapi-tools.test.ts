import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

/*
 * The OpenAPI document as the field's tools take it: Redocly's recommended rules (redocly.yaml)
 * find nothing, and openapi-typescript's types of it compile under `tsc --strict` without
 * skipLibCheck, with query parameters typed as what they are.
 */

const run = promisify(execFile);
const root = process.cwd();
const work = mkdtempSync(path.join(tmpdir(), 'openapi-tools-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

/** Redocly CLI's `lint` with the repository's redocly.yaml, as JSON (it exits 1 on errors). */
const redoclyLint = async (document: unknown): Promise<LintReport> => {
  const file = path.join(work, `openapi-${String(Date.now())}-${String(Math.random()).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document));
  const args = [
    path.join(root, 'node_modules/@redocly/cli/bin/cli.js'),
    'lint',
    file,
    '--format=json',
    `--config=${path.join(root, 'redocly.yaml')}`,
  ];
  // No telemetry and no update check: the run stays offline.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const output = await run(process.execPath, args, { env, maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => r.stdout,
    (error: unknown) => {
      const { stdout } = error as { stdout?: string };
      if (!stdout?.includes('"totals"')) throw error;
      return stdout;
    },
  );
  return JSON.parse(output.slice(output.indexOf('{'))) as LintReport;
};

const summary = (report: LintReport) =>
  report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);

describe('OpenAPI document and the field tools', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const report = await redoclyLint(buildOpenApiDocument());
    expect(summary(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('the lint run reports what it finds (a document without a license and webhook security)', async () => {
    const document = structuredClone(buildOpenApiDocument()) as unknown as {
      info: Record<string, unknown>;
      webhooks: Record<string, { post: Record<string, unknown> }>;
    };
    delete document.info.license;
    const created = document.webhooks['link.created'];
    if (!created) throw new Error('no link.created webhook in the document');
    delete created.post.security;
    const report = await redoclyLint(document);
    const rules = report.problems.map((p) => p.ruleId);
    expect(rules).toContain('info-license');
    expect(rules).toContain('security-defined');
    expect(report.totals.errors).toBeGreaterThan(0);
  });

  it('names every component schema, and types query parameters and legacy errors', () => {
    const doc = buildOpenApiDocument() as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ name: string; schema: unknown }>; responses: object }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    const names = Object.keys(doc.components.schemas);
    expect(names.filter((name) => !/^[A-Z][A-Za-z]+$/.test(name))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['Link', 'LinkCreateRequest', 'ErrorEnvelope', 'JsonValue', 'LegacyError']),
    );
    const query = (path: string) =>
      Object.fromEntries((doc.paths[path]?.get?.parameters ?? []).map((p) => [p.name, p.schema]));
    expect(query('/v1/links')).toMatchObject({
      limit: { type: 'integer', minimum: 0 },
      archived: { type: 'boolean' },
      cursor: { type: 'string' },
    });
    expect(query('/v1/analytics/events')).toMatchObject({ limit: { type: 'integer', maximum: 999_999_999 } });
    expect(query('/v1/links/{linkId}/qr')).toMatchObject({ size: { type: 'integer' }, margin: { type: 'integer' } });
    const legacy = doc.paths['/api/mobile/link/create']?.post?.responses as Record<string, { content?: unknown }>;
    expect(Object.keys(legacy).sort()).toEqual(['200', '400', '404', '413', '429', '500']);
    expect(legacy['404']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/LegacyError' } },
    });
    const form = doc.components.schemas.LegacyLinkForm as { properties: Record<string, object>; required: string[] };
    expect(form.required).toEqual(['url']);
    expect(form.properties.objects).toMatchObject({ type: 'string', contentMediaType: 'application/json' });
    expect(form.properties.tags).toMatchObject({ type: 'string', contentSchema: { type: 'array', maxItems: 20 } });
    expect(form.properties.comments).toEqual({ type: 'string', maxLength: 1000 });
    expect(JSON.stringify(doc.paths['/api/mobile/deeplink'])).toContain('#/components/schemas/LegacyDeepLinkForm');
  });

  it('lists, per route, the error statuses it can answer and the codes each carries', () => {
    const doc = buildOpenApiDocument() as unknown as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
      >;
    };
    const errors = (path: string, method: string) => {
      const responses = doc.paths[path]?.[method]?.responses ?? {};
      return Object.fromEntries(
        Object.entries(responses)
          .filter(([status]) => Number(status) >= 400)
          .map(([status, response]) => {
            type Envelope = {
              allOf?: Array<{ properties?: { error: { properties: { code: { enum: string[] } } } } }>;
              $ref?: string;
            };
            const schema = response.content?.['application/json']?.schema as Envelope & { oneOf?: Envelope[] };
            // A 429 is the route's own envelope or API Gateway's throttling answer: [codes, gateway].
            if (schema.oneOf)
              return [status, schema.oneOf.map((s) => s.allOf?.[1]?.properties?.error.properties.code.enum ?? s.$ref)];
            return [status, schema.allOf?.[1]?.properties?.error.properties.code.enum ?? schema.$ref];
          }),
      );
    };
    const gateway = '#/components/schemas/GatewayError';
    const auth = {
      '401': ['unauthorized'],
      '403': ['forbidden'],
      '429': [['rate_limited'], gateway],
      '500': ['internal_error'],
    };
    expect(errors('/v1/links', 'get')).toEqual({
      ...auth,
      '400': ['invalid_request', 'invalid_cursor'],
      '413': gateway,
    });
    expect(errors('/v1/links', 'post')).toEqual({
      ...auth,
      '400': ['invalid_json', 'invalid_request'],
      '409': ['idempotency_key_reused', 'idempotency_request_in_progress', 'slug_taken'],
      '413': gateway,
      '415': ['unsupported_media_type'],
    });
    expect(errors('/v1/links/{linkId}', 'delete')).toEqual({
      ...auth,
      '400': ['invalid_request'],
      '404': ['not_found'],
      '413': gateway,
    });
    expect(errors('/v1/client/resolve', 'post')['403']).toEqual(['forbidden', 'client_restriction_failed']);
    expect(errors('/v1/analytics/events', 'get')['503']).toEqual(['analytics_unavailable']);
    // A route without a key: the gateway's throttling is its only 429.
    expect(errors('/v1/openapi.json', 'get')).toEqual({ '413': gateway, '429': gateway, '500': ['internal_error'] });
  });

  it("openapi-typescript's types compile under tsc --strict (no skipLibCheck), typed as clients send them", async () => {
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(buildOpenApiDocument())) as never));
    const dir = mkdtempSync(path.join(work, 'types-'));
    writeFileSync(path.join(dir, 'api.d.ts'), types);
    // A client's use of the types: what must compile, and what must not (@ts-expect-error fails
    // the compile if the line has no error).
    writeFileSync(
      path.join(dir, 'use.ts'),
      [
        "import type { components, operations } from './api.js';",
        "type ListQuery = NonNullable<operations['links-list']['parameters']['query']>;",
        'export const query: ListQuery = { limit: 10, archived: true };',
        '// @ts-expect-error limit is a number',
        "export const textLimit: ListQuery = { limit: '10' };",
        '// @ts-expect-error archived is a boolean',
        "export const textArchived: ListQuery = { archived: 'true' };",
        "type CreateBody = components['schemas']['LinkCreateRequest'];",
        "export const withUrl: CreateBody = { url: 'https://example.com', domain: 'go.example.com' };",
        "export const withAlias: CreateBody = { destinationUrl: 'https://example.com', domain: 'go.example.com' };",
        '// @ts-expect-error a create needs url or its alias destinationUrl',
        "export const withoutUrl: CreateBody = { domain: 'go.example.com' };",
        "export const objects: components['schemas']['Link']['objects'] = { a: [1, 'x', { b: null }], c: { d: true } };",
        "export const error: components['schemas']['ErrorEnvelope'] = {",
        "  success: false, error: { code: 'not_found', message: 'No link' }, requestId: 'r' };",
        '',
      ].join('\n'),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const args = [
      ...['--strict', '--noEmit', '--skipLibCheck', 'false'],
      ...['--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
      ...['api.d.ts', 'use.ts'],
    ];
    const result = await run(process.execPath, [tsc, ...args], { cwd: dir }).then(
      () => '',
      (error: unknown) => (error as { stdout?: string }).stdout ?? String(error),
    );
    expect(result).toBe('');
  });
});
