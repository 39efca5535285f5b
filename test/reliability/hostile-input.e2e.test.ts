import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { request as httpRequest } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { errorCodes } from '@shared/errors/error-code';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { credentialHeaders, makeTenantFixture, multipartBody, routeCases, type TenantFixture } from './route-cases';

/** Cases per route; bounded so the suite stays fast. */
const RUNS_PER_ROUTE = 40;

let t: TestStack;
let a: TenantFixture;
const report: Record<string, { cases: number; statuses: Record<string, number> }> = {};

beforeAll(async () => {
  t = await startTestStack();
  a = await makeTenantFixture(t.tenantA);
});
afterAll(async () => {
  await t?.stop();
  const dir = path.join(projectRoot, 'test', 'artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'hostile-input-report.json'), JSON.stringify(report, null, 2));
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Raw HTTP (not fetch): lets a case send any bytes, any header value Node accepts. */
const raw = (base: string, method: string, target: string, headers: Record<string, string>, body?: Buffer) =>
  new Promise<RawResponse>((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: target, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/**
 * Bookkeeping, not data: secrets, idempotency claims, password-try counters, analytics cache; and
 * click counters (the edge counts clicks on every answer it gives, 404s of archived links too).
 */
const NOT_DATA = ['IDEMPOTENCY', 'SECRET', 'PWTRY', 'ANALYTICS_CACHE'];

const snapshot = async () => {
  const out = await getDocumentClient().send(new ScanCommand({ TableName: process.env.TABLE_NAME!, ConsistentRead: true }));
  return (out.Items ?? [])
    .filter((i) => !NOT_DATA.includes(String(i.type)))
    // Click counters (and the clicks order key that follows them) are not data a request changes.
    .map(({ clicks: _c, botClicks: _b, lastClicked: _l, lastBotClickedAt: _lb, gsi3sk: _g, ...data }) => JSON.stringify(data))
    .sort();
};

const hostileStrings = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    'javascript:alert(1)', 'data:text/html,<script>x</script>', 'file:///etc/passwd', 'аpple', 'ａｐｐｌｅ', 'a\u0000b', '../../etc',
    '<script>alert(1)</script>', "' OR 1=1 --", '${jndi:x}', '%00', '\u202eevil', 'x'.repeat(3000), '{{7*7}}', 'https://exa mple.com',
  ),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(hostileStrings, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(hostileStrings, { maxLength: 3 }), fc.dictionary(hostileStrings, hostileStrings, { maxKeys: 3 }));

type BodyKind = { kind: string; body?: Buffer; contentType?: string };
const deep = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));
const formBodies = (validForm: Record<string, string>): fc.Arbitrary<BodyKind> =>
  fc.oneof(
    fc.record({ field: fc.constantFrom(...Object.keys(validForm), 'url', 'slug', 'title', 'objects', 'tags', 'comments', 'password', 'x'), value: hostileValue }).map(({ field, value }) => ({
      kind: 'mutated-form-field',
      ...multipartBody({ ...validForm, [field]: value }),
    })),
    fc.string({ maxLength: 300 }).map((text) => ({ kind: 'broken-multipart', body: Buffer.from(`--b\r\n${text}`), contentType: 'multipart/form-data; boundary=b' })),
  );

const bodies = (validJson: unknown, validForm?: Record<string, string>): fc.Arbitrary<BodyKind> =>
  fc.oneof(
    ...(validForm ? [formBodies(validForm), formBodies(validForm)] : []),
    fc.record({ field: fc.constantFrom(...Object.keys((validJson as object) ?? { x: 1 }), 'url', 'key', 'slug', 'domain', 'tags', 'objects', 'linkId', 'events', 'shortLink'), value: hostileValue }).map(({ field, value }) => ({
      kind: 'mutated-field',
      body: Buffer.from(JSON.stringify({ ...(validJson as object), [field]: value })),
      contentType: 'application/json',
    })),
    fc.jsonValue({ maxDepth: 4 }).map((v) => ({ kind: 'random-json', body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' })),
    fc.string({ maxLength: 200 }).map((s) => ({ kind: 'broken-json', body: Buffer.from(`{"a":${s}`), contentType: 'application/json' })),
    fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ kind: 'random-bytes', body: Buffer.concat([Buffer.from('{"url":"'), Buffer.from(bytes), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), contentType: 'application/json' })),
    fc.integer({ min: 33, max: 20_000 }).map((d) => ({ kind: 'deep-nesting', body: deep(d), contentType: 'application/json' })),
    fc.constant({ kind: 'oversized', body: Buffer.alloc(1024 * 1024 + 10, 'a'), contentType: 'application/json' }),
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml', 'garbage;;').map((ct) => ({ kind: 'wrong-type', body: Buffer.from(JSON.stringify(validJson ?? {})), contentType: ct })),
    fc.constant({ kind: 'no-body' }),
  );

const asciiHeader = fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
const queries = fc.dictionary(fc.constantFrom('limit', 'cursor', 'search', 'sort', 'archived', 'tag', 'domain', 'range', 'traffic', 'eventType', 'shortLink', 'x'), hostileStrings, { maxKeys: 4 });

const expectWellFormed = (route: RouteDef, res: RawResponse, sentRequestId: string | undefined) => {
  expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
  expect(res.text).not.toMatch(/\n\s+at .+:\d+:\d+/);
  const requestId = res.headers['x-request-id'];
  if (sentRequestId !== undefined && requestId !== undefined) {
    expect(String(requestId)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  }
  if (route.api === 'edge') return;
  if (route.method === 'OPTIONS') {
    expect(res.text).toBe('');
    return;
  }
  const body = JSON.parse(res.text);
  if (route.handler === 'openapi-get' && res.status === 200) {
    expect(body.openapi).toMatch(/^3\.1/);
    return;
  }
  expect(typeof body.success).toBe('boolean');
  if (route.credential === 'legacy-mobile' || route.credential === 'legacy-app') {
    if (!body.success) expect(typeof (body.msg ?? body.error)).toBe('string');
    return;
  }
  expect(body.requestId).toBe(requestId);
  if (!body.success) expect(errorCodes).toContain(body.error.code);
};

describe('hostile input over every route', () => {
  for (const route of routeTable) {
    it(`${route.method} ${route.path} (${route.handler}) never answers 5xx and keeps its envelope`, async () => {
      const base = routeCases[route.handler]!(a, route);
      const stats = (report[route.handler] = { cases: 0, statuses: {} as Record<string, number> });
      const mutates = ['POST', 'PATCH', 'DELETE', 'PUT'].includes(base.method);
      await fc.assert(
        fc.asyncProperty(bodies(base.json, base.form), queries, asciiHeader, fc.nat(4).map((n) => n > 0), fc.option(hostileStrings, { nil: undefined }), async (body, query, requestId, withKey, pathParam) => {
          stats.cases++;
          let target = base.path;
          if (pathParam !== undefined && /\{\w+\}/.test(route.path)) {
            target = target.replace(/[^/]+$/, encodeURIComponent(pathParam).slice(0, 500) || 'x');
          }
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          if (qs) target += (target.includes('?') ? '&' : '?') + qs;
          const headers: Record<string, string> = {
            ...(withKey ? credentialHeaders(route.credential, a.tenant) : {}),
            ...base.headers,
            'x-request-id': requestId,
            ...(base.host ? { host: base.host } : {}),
            ...(body.contentType ? { 'content-type': body.contentType } : {}),
          };
          const before = mutates ? await snapshot() : [];
          const sent = body.kind === 'no-body' && base.body ? Buffer.from(base.body) : body.body;
          const res = await raw(route.api === 'edge' ? t.edgeUrl : t.baseUrl, base.method === 'ANY' ? 'GET' : base.method, target, headers, ['GET', 'HEAD', 'OPTIONS'].includes(base.method) ? undefined : sent);
          stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
          expectWellFormed(route, res, requestId);
          if (mutates && res.status >= 400) expect(await snapshot()).toEqual(before);
        }),
        { numRuns: RUNS_PER_ROUTE, seed: 20261121, endOnFailure: true },
      );
    });
  }
});
