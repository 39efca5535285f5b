import { writeTestArtifact } from '@test/support/test-artifacts';
import {
  checkpointAttribute,
  COUNTS_FROM,
  liveBots,
  liveHumans,
  settledBots,
  settledHumans,
} from '@shared/clicks/link-counters';
import { request as httpRequest } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { errorCodes } from '@shared/errors/error-code';
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
  return () => t.stop();
});
beforeAll(async () => {
  a = await makeTenantFixture(t.tenantA);
});
afterAll(() => {
  writeTestArtifact('hostile-input-report.json', report);
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
      {
        host: url.hostname,
        port: url.port,
        method,
        path: target,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/**
 * Bookkeeping, not data: secrets, idempotency claims, password-try counters, analytics cache,
 * rate-limit counters (every limited request counts, refused ones too); and
 * click counters (the edge counts clicks on every answer it gives, 404s of archived links too);
 * and a key's last-use day (`lastUsedOn`, written on the first authenticated request of a day).
 */
const NOT_DATA = ['IDEMPOTENCY', 'SECRET', 'PWTRY', 'ANALYTICS_CACHE', 'RATE'];
const COUNTER_CHECKPOINT_PREFIX = checkpointAttribute('');
/** The click counters' per-hour live counts and per-day settled counts, and where they start. */
const COUNTER_PREFIXES = [liveHumans(''), liveBots(''), settledHumans(''), settledBots('')];
const isCounterAttribute = (name: string) =>
  name.startsWith(COUNTER_CHECKPOINT_PREFIX) ||
  name === COUNTS_FROM ||
  COUNTER_PREFIXES.some((p) => name.startsWith(p));

const snapshot = async () => {
  const out = await getDocumentClient().send(
    new ScanCommand({ TableName: process.env.TABLE_NAME!, ConsistentRead: true }),
  );
  return (
    (out.Items ?? [])
      .filter((i) => !NOT_DATA.includes(String(i.type)))
      // Click counters (with the clicks order key, the consumer's per-shard checkpoints and the hourly and settled counts that follow them) are not data a request changes.
      .map(
        ({ clicks: _c, botClicks: _b, lastClicked: _l, lastBotClickedAt: _lb, gsi3sk: _g, lastUsedOn: _u, ...data }) =>
          JSON.stringify(
            // Sorted attributes: after an update DynamoDB may return them in another order.
            Object.fromEntries(
              Object.entries(data)
                .filter(([name]) => !isCounterAttribute(name))
                .sort(([a], [b]) => a.localeCompare(b)),
            ),
          ),
      )
      .sort()
  );
};

/** Lone surrogates: not well-formed Unicode; JSON.stringify escapes them (\ud800), so they reach the server. */
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Destination-looking URLs: IDN hosts, userinfo disguises, odd ports and hosts. */
const hostileUrls = fc.constantFrom(
  'https://münchen.example/straße',
  'https://xn--mnchen-3ya.example/',
  'https://例え.テスト/パス',
  'https://accounts.example.com@evil.example/',
  'https://user:pw@example.com/',
  'https://@example.com/',
  'https://:@example.com/',
  'http://a%40b@example.com/',
  'https://example.com\\@evil.example/',
  'https://example.com:99999/',
  'http://[::1]/',
  'https://example.com/😀?q=𝒳#frag',
  'https://example.com/\ud800',
);
const hostileStrings = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.tuple(fc.string({ maxLength: 5 }), loneSurrogate, fc.string({ maxLength: 5 })).map(([a, b, c]) => a + b + c),
  hostileUrls,
  fc.constantFrom(
    'javascript:alert(1)',
    'data:text/html,<script>x</script>',
    'file:///etc/passwd',
    'аpple',
    'ａｐｐｌｅ',
    'a\u0000b',
    '../../etc',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '${jndi:x}',
    '%00',
    '\u202eevil',
    'x'.repeat(3000),
    '{{7*7}}',
    'https://exa mple.com',
    '\ud800',
    '\udfff',
    '😀',
    '𝒳',
    '\ufffd',
    '\ufeff',
  ),
);
/** Map keys: Object.prototype's names, __proto__, unicode, astral and lone-surrogate keys. */
const prototypeNames = Object.getOwnPropertyNames(Object.prototype);
const hostileKeys = fc.oneof(
  fc.constantFrom(
    ...prototypeNames,
    '__proto__',
    'constructor',
    'prototype',
    'Constructor',
    '',
    ' ',
    '😀',
    '𝒳',
    'ä',
    '\u0000',
    '\ud800',
    'a\udfffb',
    'k'.repeat(300),
  ),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.string({ maxLength: 10 }),
);
const hostileNumbers = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(Number),
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 53,
    -(2 ** 53),
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    1e-200,
    -5e-324,
    1e21,
    -1,
    -0.5,
  ),
);
/** Deep and wide JSON objects with hostile keys, strings and numbers. */
const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc.object({
  key: hostileKeys,
  values: [hostileStrings, hostileNumbers, fc.boolean(), fc.constant(null)],
  maxDepth: 6,
  maxKeys: 12,
  withNullPrototype: false,
});
const wideObject = fc.dictionary(hostileKeys, fc.oneof(hostileStrings, hostileNumbers), { minKeys: 50, maxKeys: 400 });
const hostileMap = fc.oneof(hostileObject, wideObject, fc.dictionary(hostileKeys, hostileStrings, { maxKeys: 4 }));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileStrings,
  hostileNumbers,
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileStrings, { maxLength: 3 }),
  hostileMap,
);

/** Percent-encodes every byte (a Buffer as is: invalid UTF-8 allowed; a string as UTF-8, lone surrogates as U+FFFD). */
const percentEncode = (value: string | Buffer) =>
  [...(typeof value === 'string' ? Buffer.from(value, 'utf8') : value)]
    .map((b) => `%${b.toString(16).padStart(2, '0')}`)
    .join('');

type BodyKind = { kind: string; body?: Buffer; contentType?: string };
const deep = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));
const formBodies = (validForm: Record<string, string>): fc.Arbitrary<BodyKind> =>
  fc.oneof(
    fc
      .record({
        field: fc.constantFrom(
          ...Object.keys(validForm),
          'url',
          'slug',
          'title',
          'objects',
          'tags',
          'comments',
          'password',
          'x',
        ),
        value: hostileValue,
      })
      .map(({ field, value }) => ({
        kind: 'mutated-form-field',
        ...multipartBody({ ...validForm, [field]: value }),
      })),
    fc
      .record({
        field: fc.constantFrom(...Object.keys(validForm), 'url', 'title', 'objects'),
        bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
      })
      .map(({ field, bytes }) => {
        const marker = 'BYTES-GO-HERE';
        const { body, contentType } = multipartBody({ ...validForm, [field]: `${validForm[field] ?? 'x'}${marker}` });
        const at = body.indexOf(marker);
        return {
          kind: 'form-field-bytes',
          contentType,
          body: Buffer.concat([
            body.subarray(0, at),
            Buffer.from([0xff, 0xfe, ...bytes]),
            body.subarray(at + marker.length),
          ]),
        };
      }),
    fc.record({ field: fc.constantFrom('objects', 'tags'), value: hostileMap }).map(({ field, value }) => ({
      kind: 'form-map',
      ...multipartBody({ ...validForm, [field]: field === 'tags' ? Object.keys(value) : value }),
    })),
    fc.string({ maxLength: 300 }).map((text) => ({
      kind: 'broken-multipart',
      body: Buffer.from(`--b\r\n${text}`),
      contentType: 'multipart/form-data; boundary=b',
    })),
  );

const bodies = (validJson: unknown, validForm?: Record<string, string>): fc.Arbitrary<BodyKind> =>
  fc.oneof(
    ...(validForm ? [formBodies(validForm), formBodies(validForm)] : []),
    fc
      .record({
        field: fc.constantFrom(
          ...Object.keys(validJson ?? { x: 1 }),
          'url',
          'key',
          'slug',
          'domain',
          'tags',
          'objects',
          'linkId',
          'events',
          'shortLink',
        ),
        value: hostileValue,
      })
      .map(({ field, value }) => ({
        kind: 'mutated-field',
        body: Buffer.from(JSON.stringify({ ...(validJson as object), [field]: value })),
        contentType: 'application/json',
      })),
    fc
      .record({
        at: fc.constantFrom('objects', 'customParams', 'tracking', 'properties', 'socialPreview', 'platformOverrides'),
        map: hostileMap,
      })
      .map(({ at, map }) => {
        const json = { ...(validJson as object) } as Record<string, unknown>;
        if (at === 'customParams') json.tracking = { utmSource: 'x', customParams: map };
        else if (at === 'properties') json.events = [{ name: 'purchase', properties: map }];
        else json[at] = map;
        return { kind: 'mutated-map', body: Buffer.from(JSON.stringify(json)), contentType: 'application/json' };
      }),
    fc.jsonValue({ maxDepth: 4 }).map((v) => ({
      kind: 'random-json',
      body: Buffer.from(JSON.stringify(v)),
      contentType: 'application/json',
    })),
    fc
      .string({ maxLength: 200 })
      .map((s) => ({ kind: 'broken-json', body: Buffer.from(`{"a":${s}`), contentType: 'application/json' })),
    fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({
      kind: 'random-bytes',
      body: Buffer.concat([Buffer.from('{"url":"'), Buffer.from(bytes), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      contentType: 'application/json',
    })),
    fc
      .integer({ min: 33, max: 20_000 })
      .map((d) => ({ kind: 'deep-nesting', body: deep(d), contentType: 'application/json' })),
    fc.constant({ kind: 'oversized', body: Buffer.alloc(1024 * 1024 + 10, 'a'), contentType: 'application/json' }),
    fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=zz',
        'application/xml',
        'garbage;;',
      )
      .map((ct) => ({ kind: 'wrong-type', body: Buffer.from(JSON.stringify(validJson ?? {})), contentType: ct })),
    fc.constant({ kind: 'no-body' }),
  );

const asciiHeader = fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
const queries = fc.dictionary(
  fc.constantFrom(
    'limit',
    'cursor',
    'search',
    'sort',
    'archived',
    'tag',
    'domain',
    'range',
    'traffic',
    'eventType',
    'shortLink',
    'format',
    'size',
    'margin',
    'ecc',
    'color',
    'background',
    'x',
  ),
  hostileStrings,
  { maxKeys: 4 },
);

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
  if (route.handler.endsWith('-qr') && res.status === 200) {
    expect(String(res.headers['content-type'])).toMatch(/^image\/(svg\+xml|png)$/);
    return;
  }
  if (res.status === 204) {
    // No Content (signing out): no body to carry an envelope.
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
      const stats: (typeof report)[string] = { cases: 0, statuses: {} };
      report[route.handler] = stats;
      const mutates = ['POST', 'PATCH', 'DELETE', 'PUT'].includes(base.method);
      await fc.assert(
        fc.asyncProperty(
          bodies(base.json, base.form),
          queries,
          asciiHeader,
          fc.nat(4).map((n) => n > 0),
          fc.option(
            fc.oneof(
              hostileStrings,
              fc.uint8Array({ minLength: 1, maxLength: 12 }).map((b) => Buffer.from(b)),
            ),
            { nil: undefined },
          ),
          async (body, query, requestId, withKey, pathParam) => {
            stats.cases++;
            let target = base.path;
            if (pathParam !== undefined && /\{\w+\}/.test(route.path)) {
              // The last {param} segment of the route (not always the last segment: /v1/links/{linkId}/qr).
              const at = route.path.split('/').findLastIndex((s) => /^\{\w+\}$/.test(s));
              const [pathPart, queryPart] = target.split('?');
              const segments = pathPart!.split('/');
              segments[at] = percentEncode(pathParam).slice(0, 500) || 'x';
              target = segments.join('/') + (queryPart !== undefined ? `?${queryPart}` : '');
            }
            const qs = new URLSearchParams(query).toString();
            if (qs) target += (target.includes('?') ? '&' : '?') + qs;
            const headers: Record<string, string> = {
              ...(withKey ? credentialHeaders(route.credential, a.tenant) : {}),
              ...base.headers,
              'x-request-id': requestId,
              ...(base.host ? { host: base.host } : {}),
              ...(body.contentType ? { 'content-type': body.contentType } : {}),
            };
            // The edge records a click after answering: the previous request's writes land first.
            await t.idle();
            const before = mutates ? await snapshot() : [];
            const sent = body.kind === 'no-body' && base.body ? Buffer.from(base.body) : body.body;
            const res = await raw(
              route.api === 'edge' ? t.edgeUrl : t.baseUrl,
              base.method === 'ANY' ? 'GET' : base.method,
              target,
              headers,
              ['GET', 'HEAD', 'OPTIONS'].includes(base.method) ? undefined : sent,
            );
            stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
            expectWellFormed(route, res, requestId);
            if (mutates && res.status >= 400) {
              await t.idle();
              expect(await snapshot()).toEqual(before);
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261121, endOnFailure: true },
      );
    });
  }
});

/** POST a JSON body; GET the created link back through v1. */
const v1Json = async (method: string, target: string, json: unknown) => {
  const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
  const res = await raw(
    t.baseUrl,
    method,
    target,
    { 'api-key': a.tenant.serverKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  );
  return { status: res.status, body: JSON.parse(res.text) };
};
const legacyForm = async (target: string, fields: Record<string, unknown>, key = a.tenant.mobileKey) => {
  const { body, contentType } = multipartBody(fields);
  const res = await raw(t.baseUrl, 'POST', target, { 'api-key': key, 'content-type': contentType }, body);
  return { status: res.status, body: JSON.parse(res.text) };
};
const detailPaths = (body: { error?: { details?: Array<{ path: string }> } }) =>
  (body.error?.details ?? []).map((d) => d.path);

describe('maps, Unicode and URLs that used to answer 500 or be stored altered', () => {
  it('refuses Object.prototype names as map keys on v1 link and deep-link creates, naming the key', async () => {
    const before = await snapshot();
    for (const [target, base] of [
      ['/v1/links', { url: 'https://example.com/m', domain: a.tenant.domain }],
      ['/v1/deep-links', { deepLinkAppId: a.tenant.deepLinkApp.id }],
    ] as const) {
      for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const objects = await v1Json('POST', target, { ...base, objects: JSON.parse(`{"${key}":{"a":1}}`) });
        expect(objects.status, `${target} objects.${key}`).toBe(400);
        expect(objects.body.error.code).toBe('invalid_request');
        expect(detailPaths(objects.body)).toEqual([`objects.${key}`]);
        const custom = await v1Json('POST', target, {
          ...base,
          tracking: JSON.parse(`{"customParams":{"${key}":"x"}}`),
        });
        expect(custom.status).toBe(400);
        expect(detailPaths(custom.body)).toEqual([`tracking.customParams.${key}`]);
      }
    }
    const patch = await v1Json('PATCH', `/v1/links/${a.shortLink.id}`, {
      objects: JSON.parse('{"nested":{"constructor":"x"}}'),
    });
    expect(patch.status).toBe(400);
    expect(detailPaths(patch.body)).toEqual(['objects.nested.constructor']);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses lone surrogates in strings and keys (400), and keeps astral characters exactly', async () => {
    const lone = await v1Json('POST', '/v1/links', {
      url: 'https://example.com/s',
      domain: a.tenant.domain,
      title: 'a\ud800',
    });
    expect(lone.status).toBe(400);
    expect(detailPaths(lone.body)).toEqual(['title']);
    const key = await v1Json('POST', '/v1/links', {
      url: 'https://example.com/s',
      domain: a.tenant.domain,
      objects: { '\udc00': 1 },
    });
    expect(key.status).toBe(400);
    const astral = await v1Json('POST', '/v1/links', {
      url: 'https://example.com/😀',
      domain: a.tenant.domain,
      title: '𝒳 😀 ünï',
      objects: { '𝒳': ['😀'], Constructor: 'ok', ' ': '' },
    });
    expect(astral.status).toBe(201);
    const got = await v1Json('GET', `/v1/links/${astral.body.data.id}`, undefined);
    expect(got.body.data).toMatchObject({ title: '𝒳 😀 ünï', objects: { '𝒳': ['😀'], Constructor: 'ok', ' ': '' } });
    const empty = await v1Json('POST', '/v1/links', {
      url: 'https://example.com/s',
      domain: a.tenant.domain,
      objects: { a: { '': 1 } },
    });
    expect(empty.status).toBe(400);
    expect(detailPaths(empty.body)).toEqual(['objects.a.']);
  });

  it('refuses destination URLs with credentials, naming the field (v1 and legacy)', async () => {
    for (const url of ['https://accounts.example.com@evil.example/', 'https://u:p@example.com/']) {
      const res = await v1Json('POST', '/v1/links', { url, domain: a.tenant.domain });
      expect(res.status).toBe(400);
      expect(detailPaths(res.body)).toEqual(['url']);
      const expired = await v1Json('POST', '/v1/links', {
        url: 'https://example.com/',
        expiredUrl: url,
        domain: a.tenant.domain,
      });
      expect(detailPaths(expired.body)).toEqual(['expiredUrl']);
      const legacy = await legacyForm('/api/mobile/link/create', { url });
      expect(legacy.status).toBe(400);
      expect(legacy.body).toEqual({
        success: false,
        msg: expect.stringMatching(/^Invalid form: url must not contain credentials/),
      });
    }
  });

  it('legacy creates refuse reserved keys in objects, lone surrogates, and field bytes that are not UTF-8', async () => {
    const before = await snapshot();
    const link = await legacyForm('/api/mobile/link/create', {
      url: 'https://example.com/l',
      objects: '{"constructor":1}',
    });
    expect(link).toEqual({
      status: 400,
      body: { success: false, msg: expect.stringContaining('objects.constructor') },
    });
    const deepLink = await legacyForm(
      '/api/mobile/deeplink',
      { objects: '{"a":{"__proto__":{"x":1}}}' },
      a.tenant.deepLinkApp.appKey,
    );
    expect(deepLink).toEqual({
      status: 400,
      body: { success: false, msg: expect.stringContaining('objects.a.__proto__') },
    });
    const surrogate = await legacyForm('/api/mobile/link/create', {
      url: 'https://example.com/l',
      objects: '{"t":"\\ud800"}',
    });
    expect(surrogate.status).toBe(400);
    const { body, contentType } = multipartBody({ url: 'https://example.com/MARK' });
    const at = body.indexOf('MARK');
    const bytes = Buffer.concat([body.subarray(0, at), Buffer.from([0xff, 0xfe]), body.subarray(at + 4)]);
    const res = await raw(
      t.baseUrl,
      'POST',
      '/api/mobile/link/create',
      { 'api-key': a.tenant.mobileKey, 'content-type': contentType },
      bytes,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ success: false, msg: 'The form field url is not valid UTF-8' });
    expect(await snapshot()).toEqual(before);
  });

  it('every user-supplied map round-trips exactly or is refused with 400 naming the key', async () => {
    const sanitize = (v: unknown) => JSON.parse(JSON.stringify(v));
    await fc.assert(
      fc.asyncProperty(
        hostileMap,
        fc.dictionary(
          hostileKeys,
          hostileStrings.filter((s) => s.length <= 1000),
          { maxKeys: 5 },
        ),
        async (objects, customParams) => {
          const res = await v1Json('POST', '/v1/links', {
            url: 'https://example.com/rt',
            domain: a.tenant.domain,
            objects,
            tracking: { customParams },
          });
          expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(500);
          if (res.status === 201) {
            const got = await v1Json('GET', `/v1/links/${res.body.data.id}`, undefined);
            expect(got.body.data.objects).toEqual(Object.keys(objects).length === 0 ? null : sanitize(objects));
            expect(got.body.data.tracking.customParams).toEqual(sanitize(customParams));
            return;
          }
          expect(res.status).toBe(400);
          const named = detailPaths(res.body);
          expect(named.length).toBeGreaterThan(0);
          expect(named.every((p) => p.startsWith('objects') || p.startsWith('tracking'))).toBe(true);
        },
      ),
      { numRuns: 60, seed: 20261123 },
    );
  });
});
