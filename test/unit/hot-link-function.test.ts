import { parse, type Node } from 'acorn';
import { describe, expect, it } from 'vitest';
import { FUNCTION_CODE_MAX_BYTES, hotLinkFunctionCode } from '@lib/front-door/hot-link-function-code';
import { runViewerRequest } from '@lib/front-door/viewer-request-code';
import { EXPIRY_MARGIN_MS, isMainstreamBrowser } from '@shared/edge/hot-links/edge-answer';
import {
  isFunctionResponse,
  LocalKeyValueStore,
  runHotLinkFunction,
  type SandboxRequest,
} from '@shared/edge/hot-links/function-sandbox';
import { hotStoreEntryOf, isEdgeEligible } from '@shared/edge/hot-links/hot-entry';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { redirectRecord } from '@test/support/redirect-record';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const NOW = Date.parse('2026-03-01T12:00:00Z');

const viewer = (over: Partial<SandboxRequest> = {}, headers: Record<string, string> = {}): SandboxRequest => ({
  method: 'GET',
  uri: '/abc',
  querystring: {},
  cookies: {},
  headers: Object.fromEntries(
    Object.entries({ host: 'go.example.com', 'user-agent': CHROME, ...headers }).map(([k, v]) => [k, { value: v }]),
  ),
  ...over,
});

const storeWith = (record: RedirectRecord, key = 'abc', host = 'go.example.com'): LocalKeyValueStore => {
  const store = new LocalKeyValueStore();
  const entry = hotStoreEntryOf(host, key, record, '2026-03-01T11:00:00.000Z', new Date(NOW));
  if (entry) store.put(entry.key, entry.value);
  return store;
};

const run = (request: SandboxRequest, store: LocalKeyValueStore, code = hotLinkFunctionCode()) =>
  runHotLinkFunction(code, request, store, NOW);

/** What the plain viewer-request function sends the origin for the same request. */
const plainForward = (request: SandboxRequest) => runViewerRequest(structuredClone(request));

/**
 * What a file uses that the cloudfront-js-2.0 runtime lacks: parsed as ES2017 (later syntax fails
 * the parse), then classes, destructuring and default parameters (`*Pattern`), spread, `for...of`,
 * tagged templates, dynamic import, generators, async closures, imports other than `cloudfront`,
 * regex flags s/u/y and lookbehind.
 */
const unsupportedSyntax = (code: string): string[] => {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const n = node as Node & Record<string, unknown>;
    if (typeof n.type === 'string') {
      if (/^Class|Pattern$|^SpreadElement$|^ForOfStatement$|^TaggedTemplateExpression$|^ImportExpression$/.test(n.type))
        found.add(n.type);
      if (n.type === 'ImportDeclaration' && (n.source as { value: string }).value !== 'cloudfront') found.add('import');
      if ((n.type.includes('Function') && n.generator === true) || (n.type === 'ArrowFunctionExpression' && n.async))
        found.add(`${n.type} (generator or async closure)`);
      const regex = n.regex as { flags: string; pattern: string } | undefined;
      if (regex && (/[suy]/.test(regex.flags) || regex.pattern.includes('(?<'))) found.add('regex feature');
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value);
  };
  visit(parse(code, { ecmaVersion: 2017, sourceType: 'module' }));
  return [...found].sort();
};

describe('hot-link function code', () => {
  it('fits CloudFront Functions: at most 10 KB, one `cloudfront` import, nothing the runtime lacks', () => {
    const code = hotLinkFunctionCode();
    expect(Buffer.byteLength(code)).toBeLessThanOrEqual(FUNCTION_CODE_MAX_BYTES);
    expect(code.startsWith('import cf from"cloudfront";')).toBe(true);
    expect(code).toMatch(/async function handler\(event\)/);
    expect(unsupportedSyntax(code)).toEqual([]);
  });

  it('the syntax check sees what the runtime lacks', () => {
    expect(
      unsupportedSyntax(
        'import fs from "fs"; class A {} const { a } = {}; for (const x of []) {} const f = async () => 1; /x/u;',
      ),
    ).toEqual([
      'ArrowFunctionExpression (generator or async closure)',
      'ClassBody',
      'ClassDeclaration',
      'ForOfStatement',
      'ObjectPattern',
      'import',
      'regex feature',
    ]);
    expect(() => unsupportedSyntax('const a = b?.c;')).toThrow();
  });
});

describe('hot-link function in the sandbox', () => {
  it('answers a hot link with the redirect and its headers, without the origin', async () => {
    const record = redirectRecord({ url: 'https://example.com/a?x=1', tracking: { utmSource: 'news letter' } });
    const out = await run(viewer(), storeWith(record));
    expect(out).toEqual({
      statusCode: 302,
      statusDescription: 'Found',
      headers: {
        location: { value: 'https://example.com/a?x=1&utm_source=news+letter' },
        'cache-control': { value: 'private, max-age=0' },
        'referrer-policy': { value: 'strict-origin-when-cross-origin' },
      },
    });
  });

  it.each([
    ['not in the store', viewer({ uri: '/other' })],
    ['a HEAD', viewer({ method: 'HEAD' })],
    ['a POST (password form)', viewer({ method: 'POST' })],
    [
      'a crawler',
      viewer({}, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }),
    ],
    ['an unfurler', viewer({}, { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' })],
    ['an HTTP library', viewer({}, { 'user-agent': 'curl/8.4.0' })],
    ['no user agent', viewer({}, { 'user-agent': '' })],
    ['a host with a port', viewer({}, { host: 'go.example.com:8443' })],
    ['a deeper path', viewer({ uri: '/abc/x' })],
    ['a percent-encoded key', viewer({ uri: '/%61bc' })],
  ])('sends %s on to the origin as the plain viewer-request function does', async (_name, request) => {
    const out = await run(request, storeWith(redirectRecord()));
    expect(isFunctionResponse(out)).toBe(false);
    expect(out).toEqual(plainForward(request));
  });

  it('sends a malformed or foreign entry on to the origin', async () => {
    for (const value of [
      'not json',
      '{"f":2,"l":"https://e.com/","s":302,"e":null,"v":"x","i":"l"}',
      '{"f":1,"l":"javascript:alert(1)","s":302,"e":null,"v":"x","i":"l"}',
      '{"f":1,"l":"https://e.com/ a","s":302,"e":null,"v":"x","i":"l"}',
    ]) {
      const store = new LocalKeyValueStore();
      store.put('go.example.com/abc', value);
      expect(isFunctionResponse(await run(viewer(), store))).toBe(false);
    }
  });

  it('leaves a link near or past its expiry to the origin', async () => {
    const near = redirectRecord({ expiresAt: new Date(NOW + EXPIRY_MARGIN_MS).toISOString() });
    const far = redirectRecord({ expiresAt: new Date(NOW + EXPIRY_MARGIN_MS + 60_000).toISOString() });
    expect(isFunctionResponse(await run(viewer(), storeWith(near)))).toBe(false);
    expect(isFunctionResponse(await run(viewer(), storeWith(far)))).toBe(true);
  });

  it('reads the host case-insensitively, as the origin does', async () => {
    expect(isFunctionResponse(await run(viewer({}, { host: 'Go.Example.COM' }), storeWith(redirectRecord())))).toBe(
      true,
    );
  });

  it('offers no Node: require, process and any other import fail as in CloudFront', async () => {
    const store = new LocalKeyValueStore();
    await expect(
      runHotLinkFunction('async function handler(e) { return require("fs"); }', viewer(), store),
    ).rejects.toThrow();
    await expect(
      runHotLinkFunction('async function handler(e) { return process.env; }', viewer(), store),
    ).rejects.toThrow();
    await expect(
      runHotLinkFunction('import fs from "fs";\nasync function handler(e) { return e.request; }', viewer(), store),
    ).rejects.toThrow();
  });

  it('refuses code over 10 KB', async () => {
    const big = `async function handler(e) { return e.request; }\n//${'x'.repeat(10 * 1024)}`;
    await expect(runHotLinkFunction(big, viewer(), new LocalKeyValueStore())).rejects.toThrow(/at most 10240/);
  });
});

describe('local KeyValueStore limits', () => {
  it('holds a key to 512 bytes, a value to 1 KB and the store to 5 MB', () => {
    const store = new LocalKeyValueStore();
    store.put('k'.repeat(512), 'v'.repeat(1024));
    expect(() => {
      store.put('k'.repeat(513), 'v');
    }).toThrow(/key/);
    expect(() => {
      store.put('k', 'é'.repeat(513));
    }).toThrow(/value/);
    const full = new LocalKeyValueStore();
    const value = 'v'.repeat(1024 - 8);
    let i = 0;
    for (; full.sizeBytes + 8 + value.length <= 5 * 1024 * 1024; i++) full.put(String(i).padStart(8, '0'), value);
    expect(() => {
      full.put('overflow', value);
    }).toThrow(/5242880/);
    const before = full.sizeBytes;
    full.delete('00000000');
    expect(full.sizeBytes).toBe(before - 8 - value.length);
    expect(full.keyCount).toBe(i - 1);
  });
});

describe('hot entry eligibility', () => {
  it.each<[string, Partial<RedirectRecord>]>([
    ['a deep link', { linkType: 'DEEPLINK', deepLinkAppId: 'app_1' }],
    ['a password', { passwordHash: 'scrypt$x' }],
    ['an iOS override', { iosOverrideUrl: 'https://example.com/ios' }],
    ['an Android override', { androidOverrideUrl: 'https://example.com/android' }],
    ['a desktop override', { desktopOverrideUrl: 'https://example.com/desktop' }],
    ['geo', { geo: { DE: 'https://example.de' } }],
    ['rules', { rules: [{ id: 'r1', url: 'https://example.com/r', conditions: [] }] }],
    ['variants', { variants: [{ id: 'v1', url: 'https://example.com/v', weight: 100 }] }],
    ['conversion tracking', { trackConversions: true }],
    ['archived', { archived: true }],
  ])('keeps a link with %s out of the store', (_name, over) => {
    const record = redirectRecord(over);
    expect(isEdgeEligible(record)).toBe(false);
    expect(hotStoreEntryOf('go.example.com', 'abc', record, 'v', new Date(NOW))).toBeNull();
  });

  it('keeps an expired link and an entry over 1 KB out of the store', () => {
    expect(
      hotStoreEntryOf(
        'go.example.com',
        'abc',
        redirectRecord({ expiresAt: new Date(NOW).toISOString() }),
        'v',
        new Date(NOW),
      ),
    ).toBeNull();
    const long = redirectRecord({ url: `https://example.com/${'a'.repeat(1000)}` });
    expect(hotStoreEntryOf('go.example.com', 'abc', long, 'v', new Date(NOW))).toBeNull();
  });

  it('writes the entry as compact JSON with destination, status, expiry and version', () => {
    const expiresAt = '2026-04-01T00:00:00.000Z';
    const entry = hotStoreEntryOf(
      'Go.Example.com',
      'abc',
      redirectRecord({ expiresAt }),
      '2026-03-01T11:00:00.000Z',
      new Date(NOW),
    );
    expect(entry).toEqual({
      key: 'go.example.com/abc',
      value: JSON.stringify({
        f: 1,
        l: 'https://example.com/a',
        s: 302,
        e: Date.parse(expiresAt),
        v: '2026-03-01T11:00:00.000Z',
        i: 'lnk_1',
      }),
      destination: 'https://example.com/a',
    });
  });

  it('recognises mainstream browsers and refuses bot and preview tokens', () => {
    expect(isMainstreamBrowser(CHROME)).toBe(true);
    expect(
      isMainstreamBrowser(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      ),
    ).toBe(true);
    expect(isMainstreamBrowser('Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0')).toBe(true);
    expect(isMainstreamBrowser(`${CHROME} HeadlessChrome`)).toBe(false);
    expect(isMainstreamBrowser(CHROME.replace('Chrome/', 'HeadlessChrome/'))).toBe(false);
    expect(isMainstreamBrowser(CHROME.replace('Win64; x64', 'Win64; x64; Googlebot'))).toBe(false);
    expect(isMainstreamBrowser('facebookexternalhit/1.1')).toBe(false);
    expect(isMainstreamBrowser(null)).toBe(false);
  });
});
