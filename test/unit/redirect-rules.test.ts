import { describe, expect, it } from 'vitest';
import { decideClick, outcomeOf, type ClickFacts } from '@shared/edge/click-decision';
import { chooseDestination, type DestinationVisitor } from '@shared/edge/destination';
import { parseEdgeRequest } from '@shared/edge/edge-request';
import { matchRule, pickVariant, preferredLanguage, type VisitorFacts } from '@shared/edge/redirect-rules';
import { visitorCookieHeader, visitorCookieOf } from '@shared/edge/visitor-cookie';
import type { ApiEvent } from '@shared/http/api-types';
import { toIssues } from '@shared/http/validation';
import { rulesOf, variantsOf } from '@shared/links/link-input';
import type { RedirectRule, RuleCondition, Variant } from '@shared/links/link-rules';
import { createLinkBodySchema, patchLinkBodySchema } from '@shared/schemas/link-schemas';
import * as z from '@shared/schemas/zod-mini';
import { redirectRecord } from '@test/support/redirect-record';

const facts = (over: Partial<VisitorFacts> = {}): VisitorFacts => ({
  acceptLanguage: null,
  query: new URLSearchParams(),
  ip: null,
  country: null,
  client: { platform: 'desktop' },
  now: new Date('2026-06-01T12:00:00.000Z'),
  ...over,
});
const rule = (id: string, ...conditions: RuleCondition[]): RedirectRule => ({
  id,
  conditions,
  url: `https://example.com/${id}`,
});
const matches = (condition: RuleCondition, over: Partial<VisitorFacts>) =>
  matchRule([rule('r', condition)], facts(over))?.id === 'r';

describe('preferredLanguage (Accept-Language)', () => {
  it('takes the highest q, the first on ties, and ignores *, q=0 and malformed entries', () => {
    expect(preferredLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toBe('fr-ch');
    expect(preferredLanguage('en;q=0.5, de;q=0.9')).toBe('de');
    expect(preferredLanguage('en;q=0.8, de;q=0.8')).toBe('en');
    expect(preferredLanguage('*, de;q=0.1')).toBe('de');
    expect(preferredLanguage('de;q=0, en;q=0.2')).toBe('en');
    expect(preferredLanguage('de;q=0')).toBeNull();
    expect(preferredLanguage('  PT-br ;q=1')).toBe('pt-br');
    expect(preferredLanguage('1234, de;q=0.3')).toBe('de');
    expect(preferredLanguage('de;q=2, en;q=0.4')).toBe('en');
    expect(preferredLanguage('')).toBeNull();
    expect(preferredLanguage(null)).toBeNull();
  });
});

describe('the matcher, one condition type at a time', () => {
  it('language: a value without a region matches any region; with one, only it; any case', () => {
    const de: RuleCondition = { type: 'language', value: 'de' };
    expect(matches(de, { acceptLanguage: 'de-AT,en;q=0.5' })).toBe(true);
    expect(matches(de, { acceptLanguage: 'DE' })).toBe(true);
    expect(matches(de, { acceptLanguage: 'en,de;q=0.9' })).toBe(false);
    expect(matches(de, { acceptLanguage: 'dea' })).toBe(false);
    expect(matches(de, { acceptLanguage: null })).toBe(false);
    const ptBR: RuleCondition = { type: 'language', value: 'pt-BR' };
    expect(matches(ptBR, { acceptLanguage: 'pt-br' })).toBe(true);
    expect(matches(ptBR, { acceptLanguage: 'pt-PT' })).toBe(false);
    expect(matches(ptBR, { acceptLanguage: 'pt' })).toBe(false);
  });

  it('query: equal to the value, or present when no value is given', () => {
    const mail: RuleCondition = { type: 'query', param: 'ref', value: 'mail' };
    expect(matches(mail, { query: new URLSearchParams('ref=mail') })).toBe(true);
    expect(matches(mail, { query: new URLSearchParams('ref=web&ref=mail') })).toBe(true);
    expect(matches(mail, { query: new URLSearchParams('ref=Mail') })).toBe(false);
    expect(matches(mail, { query: new URLSearchParams('other=mail') })).toBe(false);
    const present: RuleCondition = { type: 'query', param: 'ref' };
    expect(matches(present, { query: new URLSearchParams('ref=') })).toBe(true);
    expect(matches(present, { query: new URLSearchParams('') })).toBe(false);
  });

  it('ip: IPv4 and IPv6 CIDRs and single addresses; an IPv4-mapped IPv6 viewer counts as IPv4', () => {
    const office: RuleCondition = { type: 'ip', value: '203.0.113.0/24' };
    expect(matches(office, { ip: '203.0.113.77' })).toBe(true);
    expect(matches(office, { ip: '203.0.114.1' })).toBe(false);
    expect(matches(office, { ip: '::ffff:203.0.113.9' })).toBe(true);
    expect(matches(office, { ip: '2001:db8::1' })).toBe(false);
    expect(matches(office, { ip: null })).toBe(false);
    expect(matches(office, { ip: 'not-an-ip' })).toBe(false);
    const v6: RuleCondition = { type: 'ip', value: '2001:db8:abcd::/48' };
    expect(matches(v6, { ip: '2001:db8:abcd:12::1' })).toBe(true);
    expect(matches(v6, { ip: '2001:DB8:ABCD:0:0:0:0:5' })).toBe(true);
    expect(matches(v6, { ip: '2001:db8:abce::1' })).toBe(false);
    expect(matches(v6, { ip: '203.0.113.1' })).toBe(false);
    expect(matches({ type: 'ip', value: '198.51.100.7' }, { ip: '198.51.100.7' })).toBe(true);
    expect(matches({ type: 'ip', value: '198.51.100.7' }, { ip: '198.51.100.8' })).toBe(false);
    expect(matches({ type: 'ip', value: '::1' }, { ip: '0:0:0:0:0:0:0:1' })).toBe(true);
    expect(matches({ type: 'ip', value: '0.0.0.0/0' }, { ip: '8.8.8.8' })).toBe(true);
  });

  it('country and device', () => {
    expect(matches({ type: 'country', value: 'DE' }, { country: 'DE' })).toBe(true);
    expect(matches({ type: 'country', value: 'DE' }, { country: 'de' })).toBe(true);
    expect(matches({ type: 'country', value: 'DE' }, { country: 'AT' })).toBe(false);
    expect(matches({ type: 'country', value: 'DE' }, { country: null })).toBe(false);
    const on = (platform: 'ios' | 'android' | 'desktop' | 'other') => ({ client: { platform } });
    expect(matches({ type: 'device', value: 'ios' }, on('ios'))).toBe(true);
    expect(matches({ type: 'device', value: 'ios' }, on('android'))).toBe(false);
    expect(matches({ type: 'device', value: 'android' }, on('android'))).toBe(true);
    expect(matches({ type: 'device', value: 'mobile' }, on('ios'))).toBe(true);
    expect(matches({ type: 'device', value: 'mobile' }, on('android'))).toBe(true);
    expect(matches({ type: 'device', value: 'mobile' }, on('desktop'))).toBe(false);
    expect(matches({ type: 'device', value: 'desktop' }, on('desktop'))).toBe(true);
    expect(matches({ type: 'device', value: 'desktop' }, on('other'))).toBe(false);
  });

  it('after / before: the boundary instant is "after" and not "before"', () => {
    const at = '2026-06-01T12:00:00.000Z';
    const instant = new Date(at);
    const justBefore = new Date(instant.getTime() - 1);
    expect(matches({ type: 'after', value: at }, { now: instant })).toBe(true);
    expect(matches({ type: 'after', value: at }, { now: justBefore })).toBe(false);
    expect(matches({ type: 'before', value: at }, { now: instant })).toBe(false);
    expect(matches({ type: 'before', value: at }, { now: justBefore })).toBe(true);
  });

  it('the first rule whose conditions all match wins; none: null', () => {
    const rules = [
      rule('both', { type: 'country', value: 'DE' }, { type: 'device', value: 'ios' }),
      rule('de', { type: 'country', value: 'DE' }),
      rule('any-ios', { type: 'device', value: 'ios' }),
    ];
    expect(matchRule(rules, facts({ country: 'DE', client: { platform: 'ios' } }))?.id).toBe('both');
    expect(matchRule(rules, facts({ country: 'DE' }))?.id).toBe('de');
    expect(matchRule(rules, facts({ client: { platform: 'ios' } }))?.id).toBe('any-ios');
    expect(matchRule(rules, facts({ country: 'FR' }))).toBeNull();
    expect(matchRule(null, facts())).toBeNull();
  });
});

describe('variants', () => {
  const variants: Variant[] = [
    { id: 'a', url: 'https://example.com/a', weight: 50 },
    { id: 'b', url: 'https://example.com/b', weight: 50 },
  ];
  it('the same visitor always gets the same variant; visitors spread by the weights', () => {
    const first = pickVariant(variants, 'lnk_1', 'visitor-1');
    for (let i = 0; i < 5; i++) expect(pickVariant(variants, 'lnk_1', 'visitor-1')).toBe(first);
    const skewed: Variant[] = [
      { id: 'a', url: 'https://example.com/a', weight: 10 },
      { id: 'b', url: 'https://example.com/b', weight: 90 },
    ];
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (pickVariant(skewed, 'lnk_1', `v${String(i)}`)?.id === 'a') a++;
    expect(a).toBeGreaterThan(800);
    expect(a).toBeLessThan(1200);
  });
});

describe('the order: rules -> platform override -> geo -> variants -> url', () => {
  const record = redirectRecord({
    url: 'https://example.com/url',
    iosOverrideUrl: 'https://example.com/ios',
    geo: { DE: 'https://example.com/geo-de' },
    rules: [rule('office', { type: 'ip', value: '10.0.0.0/8' })],
    variants: [
      { id: 'va', url: 'https://example.com/va', weight: 50 },
      { id: 'vb', url: 'https://example.com/vb', weight: 50 },
    ],
    tracking: { utmSource: 'x' },
  });
  const visitor = (over: Partial<DestinationVisitor> = {}): DestinationVisitor => ({
    platform: 'desktop',
    country: null,
    acceptLanguage: null,
    query: new URLSearchParams(),
    ip: '192.0.2.1',
    now: new Date(),
    visitorKey: 'key-1',
    ...over,
  });
  it('decides in that order, with tracking on whichever wins', () => {
    expect(chooseDestination(record, visitor({ ip: '10.1.2.3', platform: 'ios', country: 'DE' }))).toEqual({
      url: 'https://example.com/office?utm_source=x',
      ruleId: 'office',
      variantId: null,
    });
    expect(chooseDestination(record, visitor({ platform: 'ios', country: 'DE' })).url).toBe(
      'https://example.com/ios?utm_source=x',
    );
    expect(chooseDestination(record, visitor({ country: 'DE' })).url).toBe('https://example.com/geo-de?utm_source=x');
    const variant = chooseDestination(record, visitor());
    expect(['va', 'vb']).toContain(variant.variantId);
    expect(variant.url).toBe(`https://example.com/${String(variant.variantId)}?utm_source=x`);
    expect(chooseDestination(record, visitor({ visitorKey: null }))).toEqual({
      url: 'https://example.com/url?utm_source=x',
      ruleId: null,
      variantId: null,
    });
  });
});

describe('the edge click with variants: the cookie', () => {
  const request = (cookies?: string[]) =>
    parseEdgeRequest(
      {
        headers: { host: 'go.example.com', 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0' },
        cookies,
        rawPath: '/k',
        rawQueryString: '',
        requestContext: { http: { method: 'GET', sourceIp: '198.51.100.1' }, domainName: 'x' },
      } as unknown as ApiEvent,
      'k',
    );
  const record = redirectRecord({
    variants: [
      { id: 'va', url: 'https://example.com/va', weight: 50 },
      { id: 'vb', url: 'https://example.com/vb', weight: 50 },
    ],
  });
  const clickFacts = (over: Partial<ClickFacts>): ClickFacts => ({
    request: request(),
    host: { hostname: 'go.example.com', workspaceId: 'ws_1', domainId: 'dom_1', appId: null, alternate: false },
    key: 'k',
    record,
    unlocked: false,
    now: new Date(),
    ...over,
  });
  it('sets the cookie only when the key was not from it, and records the variant', () => {
    const fresh = clickFacts({ visitorKey: { key: 'abcdefghijklmnop', fromCookie: false } });
    const decided = decideClick(fresh, outcomeOf(fresh), undefined);
    expect(decided.visitorCookie).toBe('abcdefghijklmnop');
    expect(decided.recording?.decidedBy.variantId).toMatch(/^v[ab]$/);
    const back = clickFacts({
      request: request(['lv_vid=abcdefghijklmnop']),
      visitorKey: { key: 'abcdefghijklmnop', fromCookie: true },
    });
    const again = decideClick(back, outcomeOf(back), undefined);
    expect(again.visitorCookie).toBeNull();
    expect(again.answer).toEqual(decided.answer);
  });
  it('reads a well-formed cookie only, and sets it for 30 days', () => {
    expect(visitorCookieOf(['a=b', 'lv_vid=abcdefghijklmnop'])).toBe('abcdefghijklmnop');
    expect(visitorCookieOf(['lv_vid=short'])).toBeNull();
    expect(visitorCookieOf(['lv_vid=<script>alert(1)</script>xx'])).toBeNull();
    expect(visitorCookieOf(undefined)).toBeNull();
    expect(request(['lv_vid=abcdefghijklmnop']).visitorCookie).toBe('abcdefghijklmnop');
    expect(visitorCookieHeader('abcdefghijklmnop', true)).toBe(
      'lv_vid=abcdefghijklmnop; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax; Secure',
    );
  });
});

const issuesOf = (body: Record<string, unknown>) => {
  const parsed = z.safeParse(createLinkBodySchema, { url: 'https://example.com', domain: 'go.example.com', ...body });
  return parsed.success ? [] : toIssues(parsed.error);
};
const pathsOf = (body: Record<string, unknown>) => issuesOf(body).map((i) => i.path);
const ok = { conditions: [{ type: 'country', value: 'de' }], url: 'https://example.com/de' };

describe('rules and variants validation', () => {
  it('normalises what it accepts', () => {
    const parsed = z.parse(createLinkBodySchema, {
      url: 'https://example.com',
      domain: 'go.example.com',
      rules: [
        {
          id: 'keep-me',
          conditions: [
            { type: 'language', value: 'pt-br' },
            { type: 'ip', value: '10.1.2.3/8' },
            { type: 'ip', value: '2001:DB8:0:0:1::1/64' },
            { type: 'country', value: 'de' },
            { type: 'after', value: '2026-01-01T01:00:00+01:00' },
            { type: 'query', param: 'ref' },
          ],
          url: 'https://example.com/x',
        },
      ],
    });
    expect(parsed.rules?.[0]?.conditions).toEqual([
      { type: 'language', value: 'pt-BR' },
      { type: 'ip', value: '10.0.0.0/8' },
      { type: 'ip', value: '2001:db8::/64' },
      { type: 'country', value: 'DE' },
      { type: 'after', value: '2026-01-01T00:00:00.000Z' },
      { type: 'query', param: 'ref' },
    ]);
    expect(z.parse(patchLinkBodySchema, { rules: null, variants: null })).toEqual({ rules: null, variants: null });
  });

  it('names the path of each bad input', () => {
    const bad = (condition: Record<string, unknown>) => ({
      rules: [
        ok,
        { ...ok, url: 'https://example.com/other' },
        { conditions: [condition], url: 'https://example.com/bad' },
      ],
    });
    expect(issuesOf(bad({ type: 'ip', value: '10.0.0.0/33' }))).toEqual([
      { path: 'rules[2].conditions[0].value', message: expect.stringContaining('CIDR') },
    ]);
    expect(
      pathsOf({ rules: [{ ...ok }, { conditions: [{ type: 'city', value: 'x' }], url: 'https://e.com' }] }),
    ).toEqual(['rules[1].conditions[0].type']);
    expect(pathsOf(bad({ type: 'ip', value: '::1/129' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf(bad({ type: 'ip', value: '10.1' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf(bad({ type: 'language', value: 'not a tag' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf(bad({ type: 'query', param: '' }))).toContain('rules[2].conditions[0].param');
    expect(pathsOf(bad({ type: 'query', param: 'p'.repeat(101) }))).toContain('rules[2].conditions[0].param');
    expect(pathsOf(bad({ type: 'device', value: 'tv' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf(bad({ type: 'country', value: 'ZZ' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf(bad({ type: 'before', value: 'tomorrow' }))).toContain('rules[2].conditions[0].value');
    expect(pathsOf({ rules: [{ conditions: [], url: 'https://example.com' }] })).toEqual(['rules[0].conditions']);
    expect(
      pathsOf({
        rules: [
          {
            conditions: [
              { type: 'before', value: '2026-01-01T00:00:00Z' },
              { type: 'after', value: '2026-02-01T00:00:00Z' },
            ],
            url: 'https://example.com',
          },
        ],
      }),
    ).toEqual(['rules[0].conditions[1].value']);
    expect(
      pathsOf({ rules: Array.from({ length: 21 }, (_, i) => ({ ...ok, url: `https://e.com/${String(i)}` })) }),
    ).toEqual(['rules']);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ type: 'query', param: `p${String(i)}` }));
    expect(pathsOf({ rules: [{ conditions: eleven, url: 'https://example.com' }] })).toEqual(['rules[0].conditions']);
    expect(
      pathsOf({
        rules: [
          { ...ok, id: 'x' },
          { ...ok, id: 'x', url: 'https://e.com/2' },
        ],
      }),
    ).toEqual(['rules[1].id']);
    expect(pathsOf({ rules: [ok, { ...ok, id: 'other' }] })).toEqual(['rules[1]']);
    expect(pathsOf({ rules: [{ ...ok, url: 'javascript:alert(1)' }] })).toEqual(['rules[0].url']);
    // Subtler shadowing is accepted: users stage rules.
    expect(
      pathsOf({ rules: [ok, { ...ok, conditions: [...ok.conditions, { type: 'device', value: 'ios' }] }] }),
    ).toEqual([]);
  });

  it('refuses bad variants naming the path', () => {
    const v = (url: string, weight: number, id?: string) => ({ url, weight, ...(id ? { id } : {}) });
    expect(pathsOf({ variants: [v('https://e.com/a', 50), v('https://e.com/b', 40)] })).toEqual(['variants']);
    expect(pathsOf({ variants: [v('https://e.com/a', 100)] })).toContain('variants');
    expect(pathsOf({ variants: [1, 2, 3, 4, 5].map((i) => v(`https://e.com/${String(i)}`, 20)) })).toContain(
      'variants',
    );
    expect(pathsOf({ variants: [v('https://e.com/a', 50), v('https://e.com/a', 50)] })).toEqual(['variants[1].url']);
    expect(pathsOf({ variants: [v('https://e.com/a', 50, 'x'), v('https://e.com/b', 50, 'x')] })).toEqual([
      'variants[1].id',
    ]);
    expect(pathsOf({ variants: [v('https://e.com/a', 0), v('https://e.com/b', 100)] })).toContain('variants[0].weight');
    expect(pathsOf({ variants: [v('https://e.com/a', 49.5), v('https://e.com/b', 50.5)] })).toContain(
      'variants[0].weight',
    );
    expect(pathsOf({ variants: [v('ftp://e.com/a', 50), v('https://e.com/b', 50)] })).toEqual(['variants[0].url']);
    expect(pathsOf({ variants: [v('https://e.com/a', 30), v('https://e.com/b', 70)] })).toEqual([]);
  });

  it('assigns short unique ids where absent and keeps given ones', () => {
    const rules = rulesOf([
      { id: 'kept', conditions: [{ type: 'country', value: 'DE' }], url: 'https://e.com/1' },
      { conditions: [{ type: 'country', value: 'FR' }], url: 'https://e.com/2' },
      { conditions: [{ type: 'country', value: 'IT' }], url: 'https://e.com/3' },
    ]);
    expect(rules?.[0]?.id).toBe('kept');
    expect(rules?.[1]?.id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(new Set(rules?.map((r) => r.id)).size).toBe(3);
    expect(rulesOf([])).toBeNull();
    expect(variantsOf(null)).toBeNull();
  });
});
