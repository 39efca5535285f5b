import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hotLinkFunctionCode } from '@lib/front-door/hot-link-function-code';
import { runViewerRequest } from '@lib/front-door/viewer-request-code';
import { decideClick, outcomeOf, type ClickFacts } from '@shared/edge/click-decision';
import { renderClick } from '@shared/edge/click-response';
import { parseEdgeRequest } from '@shared/edge/edge-request';
import type { ResolvedHost } from '@shared/edge/host-resolver';
import {
  isFunctionResponse,
  LocalKeyValueStore,
  runHotLinkFunction,
  type SandboxRequest,
} from '@shared/edge/hot-links/function-sandbox';
import { hotStoreEntryOf } from '@shared/edge/hot-links/hot-entry';
import { LINK_KEY } from '@shared/edge/link-key';
import { linkKeyOfPath } from '@shared/edge/link-path';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { markThroughFrontDoor } from '@shared/http/trusted-viewer';
import type { Tracking } from '@shared/links/link-record';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { redirectRecord } from '@test/support/redirect-record';

/*
 * The edge function and the origin decide a hot link alike: thousands of random eligible links
 * and requests go to both the compiled function (in the CloudFront Functions sandbox, reading the
 * entry the hot-set writer would store) and the origin's click path (the request the function
 * forwards, parsed by edge-request.ts, decided by click-decision.ts, rendered by
 * click-response.ts). Whenever the function answers, the status, `Location` and caching headers
 * are the origin's.
 */

const NOW = Date.parse('2026-03-01T12:00:00Z');

const MAINSTREAM = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
];

/** Tokens crawlers, unfurlers, previewers and HTTP libraries put in their user agents. */
const BOT_TOKENS = [
  'Googlebot/2.1',
  'bingbot/2.0',
  'HeadlessChrome/124.0.0.0',
  'Chrome-Lighthouse',
  'facebookexternalhit/1.1',
  'Slackbot-LinkExpanding 1.0',
  'Twitterbot/1.0',
  'LinkedInBot/1.0',
  'WhatsApp/2.23.20.0',
  'TelegramBot',
  'Discordbot/2.0',
  'Applebot/0.1',
  'python-requests/2.31.0',
  'curl/8.4.0',
  'Go-http-client/1.1',
  'okhttp/4.12.0',
  'PetalBot',
  'YandexBot/3.0',
  'AhrefsBot/7.0',
  'SemrushBot',
  'ia_archiver',
  'Pinterestbot',
  'Embedly',
  'Snapchat',
  'Spider',
  'Crawler',
];

/** Android device models, real and odd (what the model slot can hold). */
const model = fc.oneof(
  fc.constantFrom('K', 'Pixel 8', 'SM-S918B', 'M2101K6G', 'moto g(60)'),
  fc.constantFrom(...BOT_TOKENS),
  fc.stringMatching(/^[A-Za-z0-9 _.-]{1,20}$/),
);

const userAgent = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...MAINSTREAM) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 5, max: 15 }), model, fc.integer({ min: 60, max: 140 }))
      .map(
        ([android, device, chrome]) =>
          `Mozilla/5.0 (Linux; Android ${String(android)}; ${device}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${String(chrome)}.0.0.0 Mobile Safari/537.36`,
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...MAINSTREAM), fc.constantFrom(...BOT_TOKENS), fc.boolean())
      .map(([ua, token, before]) => (before ? `${token} ${ua}` : `${ua} ${token}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...MAINSTREAM), fc.constantFrom(...BOT_TOKENS))
      .map(([ua, token]) => ua.replace(/\(([^)]*)\)/, `($1; ${token})`)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...BOT_TOKENS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
);

const trackingValue = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('news letter', 'é&ü=1', '%41', 'a+b'));

const tracking: fc.Arbitrary<Tracking | null> = fc.option(
  fc.record(
    {
      utmSource: trackingValue,
      utmMedium: trackingValue,
      utmCampaign: trackingValue,
      utmTerm: trackingValue,
      utmContent: trackingValue,
      ref: trackingValue,
      customParams: fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), trackingValue, { maxKeys: 3 }),
    },
    { requiredKeys: [] },
  ),
  { nil: null },
);

const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'https://例え.jp/中文?q=é',
    'https://example.com/a%20b?utm_source=kept',
    'http://example.com:8080/path;p?x=1&x=2#frag',
    'https://xn--bcher-kva.example/ü',
  ),
);

/** Expiry: none, past, near (inside the edge's margin) or later. */
const expiresAt = fc.option(
  fc.integer({ min: -3_600_000, max: 3 * 86_400_000 }).map((offset) => new Date(NOW + offset).toISOString()),
  { nil: null },
);

const eligibleLink: fc.Arbitrary<RedirectRecord> = fc
  .record({ url, tracking, expiresAt, geo: fc.constantFrom(null, {}), noRules: fc.boolean() })
  .map(({ noRules, ...over }) =>
    redirectRecord({ ...over, rules: noRules ? [] : null, variants: noRules ? [] : null }),
  );

const host = fc.domain().filter((d) => d.length <= 200);
const key = fc.stringMatching(LINK_KEY);

interface Case {
  host: string;
  key: string;
  record: RedirectRecord;
  request: SandboxRequest;
}

const viewerCase: fc.Arbitrary<Case> = fc
  .record({
    host,
    key,
    record: eligibleLink,
    method: fc.oneof({ weight: 8, arbitrary: fc.constant('GET') }, fc.constantFrom('HEAD', 'POST')),
    userAgent,
    hostCase: fc.oneof({ weight: 6, arbitrary: fc.constant('lower') }, fc.constantFrom('upper', 'port')),
    path: fc.oneof({ weight: 8, arbitrary: fc.constant('key') }, fc.constantFrom('deeper', 'other')),
    query: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.record({ value: fc.string({ maxLength: 8 }) }), {
      maxKeys: 2,
    }),
  })
  .map(({ host: h, key: k, record, method, userAgent: ua, hostCase, path, query }) => ({
    host: h,
    key: k,
    record,
    request: {
      method,
      uri: path === 'key' ? `/${k}` : path === 'deeper' ? `/${k}/x` : `/${k}x`,
      querystring: query,
      cookies: {},
      headers: {
        host: { value: hostCase === 'upper' ? h.toUpperCase() : hostCase === 'port' ? `${h}:443` : h },
        'user-agent': { value: ua },
      },
    },
  }));

/** The origin's answer to the request the plain viewer-request function forwards. */
const originAnswer = ({ host: h, key: k, record, request }: Case): ApiResult => {
  const forwarded = runViewerRequest(structuredClone(request));
  const headers = Object.fromEntries(Object.entries(forwarded.headers).map(([name, v]) => [name, v.value]));
  const event = {
    headers,
    rawPath: forwarded.uri,
    rawQueryString: new URLSearchParams(
      Object.entries(forwarded.querystring).map(([n, v]): [string, string] => [n, v.value]),
    ).toString(),
    cookies: [],
    requestContext: { http: { method: forwarded.method, sourceIp: '198.51.100.7' }, domainName: 'origin.lambda-url' },
  } as unknown as ApiEvent;
  markThroughFrontDoor(event);
  const pathKey = linkKeyOfPath(event.rawPath) ?? '';
  const parsed = parseEdgeRequest(event, pathKey);
  const resolved: ResolvedHost | null =
    parsed.hostname === h
      ? { hostname: h, workspaceId: 'ws_1', domainId: 'dom_1', appId: null, alternate: false }
      : null;
  if (!resolved) return { statusCode: 404 };
  const facts: ClickFacts = {
    request: parsed,
    host: resolved,
    key: pathKey,
    record: LINK_KEY.test(pathKey) && pathKey === k ? record : undefined,
    unlocked: false,
    now: new Date(NOW),
    visitorKey: null,
  };
  return renderClick(parsed, pathKey, decideClick(facts, outcomeOf(facts), undefined).answer);
};

describe('hot-link edge function and origin decide alike', () => {
  it('answers, whenever it answers, with the origin status, Location and caching headers', async () => {
    const code = hotLinkFunctionCode();
    let answered = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(viewerCase, async (c) => {
        runs++;
        const store = new LocalKeyValueStore();
        const entry = hotStoreEntryOf(c.host, c.key, c.record, '2026-03-01T11:00:00.000Z', new Date(NOW));
        if (entry) store.put(entry.key, entry.value);
        const out = await runHotLinkFunction(code, c.request, store, NOW);
        if (!isFunctionResponse(out)) {
          // Not answered: the origin gets exactly what the plain viewer-request function sends.
          expect(out).toEqual(runViewerRequest(structuredClone(c.request)));
          return;
        }
        answered++;
        const origin = originAnswer(c);
        expect({
          status: out.statusCode,
          location: out.headers.location?.value,
          cacheControl: out.headers['cache-control']?.value,
          referrerPolicy: out.headers['referrer-policy']?.value,
        }).toEqual({
          status: origin.statusCode,
          location: origin.headers?.Location,
          cacheControl: origin.headers?.['Cache-Control'],
          referrerPolicy: origin.headers?.['Referrer-Policy'],
        });
      }),
      { numRuns: 2500, seed: 37 },
    );
    // The property is not vacuous: a good share of the random requests were answered at the edge.
    expect(runs).toBe(2500);
    expect(answered).toBeGreaterThan(runs / 4);
  });
});
