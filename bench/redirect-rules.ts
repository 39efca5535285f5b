import { matchRule, pickVariant, type VisitorFacts } from '@shared/edge/redirect-rules';
import type { RedirectRule, RuleCondition, Variant } from '@shared/links/link-rules';
import { percentile, round } from './stats';

/** The redirect rules' matcher at its worst, and the A/B split over simulated visitors. */
export interface RulesBench {
  /** Matching one click against 20 rules of 10 conditions that all fail on the last condition (every condition evaluated). */
  matcher: { rules: number; conditions: number; samples: number; p50Us: number; p99Us: number };
  /** 10,000 simulated visitors on a 50/50 test: each side's share, and whether a visitor's second pick equals the first. */
  variants: { visitors: number; sharesPercent: number[]; stable: boolean };
}

const RULES = 20;
const CONDITIONS = 10;
const SAMPLES = 20_000;
const WARMUP = 2_000;
const VISITORS = 10_000;

/** Nine conditions the click matches (every type, IPv6 ranges among them) and a tenth it does not. */
const worstCaseRules = (): RedirectRule[] =>
  Array.from({ length: RULES }, (_, i) => {
    const matching: RuleCondition[] = [
      { type: 'language', value: 'de' },
      { type: 'query', param: 'utm_source', value: 'mail' },
      { type: 'ip', value: '2001:db8::/32' },
      { type: 'ip', value: `2001:db8:${(i + 1).toString(16)}::/16` },
      { type: 'country', value: 'DE' },
      { type: 'device', value: 'mobile' },
      { type: 'after', value: '2020-01-01T00:00:00.000Z' },
      { type: 'before', value: '2999-01-01T00:00:00.000Z' },
      { type: 'query', param: 'ref' },
    ];
    return {
      id: `rule${String(i)}`,
      conditions: [...matching, { type: 'ip', value: `10.${String(i)}.0.0/16` }],
      url: `https://example.com/${String(i)}`,
    };
  });

const worstCaseClick = (): VisitorFacts => ({
  acceptLanguage: 'fr-CH;q=0.4, de-DE, en-US;q=0.8, en;q=0.7, *;q=0.1',
  query: new URLSearchParams('utm_source=mail&ref=x&utm_medium=email'),
  ip: '2001:db8:85a3::8a2e:370:7334',
  country: 'DE',
  client: { platform: 'ios' },
  now: new Date(),
});

const measureMatcher = (): RulesBench['matcher'] => {
  const rules = worstCaseRules();
  const click = worstCaseClick();
  if (matchRule(rules, click) !== null) throw new Error('the worst case must not match');
  const times: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    // A fresh facts object per click: the preferred language and the address are parsed per click.
    const facts = { ...click };
    const start = process.hrtime.bigint();
    matchRule(rules, facts);
    const took = Number(process.hrtime.bigint() - start) / 1000;
    if (i >= WARMUP) times.push(took);
  }
  return {
    rules: RULES,
    conditions: CONDITIONS,
    samples: SAMPLES,
    p50Us: round(percentile(times, 50)),
    p99Us: round(percentile(times, 99)),
  };
};

const measureSplit = (): RulesBench['variants'] => {
  const variants: Variant[] = [
    { id: 'a', url: 'https://example.com/a', weight: 50 },
    { id: 'b', url: 'https://example.com/b', weight: 50 },
  ];
  const counts = new Map<string, number>();
  let stable = true;
  for (let i = 0; i < VISITORS; i++) {
    // Visitor keys like the service's visitor ids (32 hex characters).
    const key = (i * 2654435761).toString(16).padStart(32, '0');
    const first = pickVariant(variants, 'lnk_bench', key)?.id ?? '';
    if (pickVariant(variants, 'lnk_bench', key)?.id !== first) stable = false;
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return {
    visitors: VISITORS,
    sharesPercent: variants.map((v) => round(((counts.get(v.id) ?? 0) * 100) / VISITORS)),
    stable,
  };
};

/** Both measurements, in-process (well under a second). */
export const measureRedirectRules = (): RulesBench => ({ matcher: measureMatcher(), variants: measureSplit() });
