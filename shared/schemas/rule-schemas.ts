import * as z from './zod-mini';
import ipaddr from 'ipaddr.js';
import { countryCodeOf } from '@shared/geo/country-codes';
import {
  CONDITIONS_MAX,
  QUERY_PARAM_MAX,
  RULE_ID_PATTERN,
  RULES_MAX,
  VARIANTS_MAX,
  VARIANTS_MIN,
  type DeviceValue,
  type RuleCondition,
} from '@shared/links/link-rules';
import { httpUrlSchema } from './common-schemas';

const CONDITION_TYPES = ['language', 'query', 'ip', 'country', 'device', 'after', 'before'] as const;
const DEVICES: readonly DeviceValue[] = ['ios', 'android', 'mobile', 'desktop'];
const VALUE_MAX = 200;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A BCP 47 language tag, canonicalised (`pt-br` -> `pt-BR`); undefined when it is not one. */
export const languageTagOf = (value: string): string | undefined => {
  try {
    const [tag] = Intl.getCanonicalLocales(value);
    return tag;
  } catch {
    return undefined;
  }
};

/**
 * An IPv4 or IPv6 address or CIDR, normalised (host bits cleared, IPv6 in RFC 5952 form);
 * undefined when invalid (IPv4 only in four-part decimal, prefixes up to 32 / 128).
 */
export const ipRangeOf = (value: string): string | undefined => {
  const [address = '', prefix, ...rest] = value.split('/');
  if (rest.length > 0) return undefined;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  const v6 = !v4 && ipaddr.IPv6.isValid(address) && !address.includes('%');
  if (!v4 && !v6) return undefined;
  if (prefix === undefined)
    return v4 ? ipaddr.IPv4.parse(address).toString() : ipaddr.IPv6.parse(address).toRFC5952String();
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (v4 ? 32 : 128)) return undefined;
  return v4
    ? `${ipaddr.IPv4.networkAddressFromCIDR(value).toString()}/${String(Number(prefix))}`
    : `${ipaddr.IPv6.networkAddressFromCIDR(value).toRFC5952String()}/${String(Number(prefix))}`;
};

interface ConditionInput {
  type: (typeof CONDITION_TYPES)[number];
  value?: string | undefined;
  param?: string | undefined;
}

/** The stored form of a valid condition input, or the message for its `value`. */
const normalizeCondition = (c: ConditionInput): RuleCondition | { error: string; at: 'value' | 'param' } => {
  const value = c.value;
  if (c.type === 'query') {
    if (c.param === undefined || c.param === '') return { error: 'is required and must not be empty', at: 'param' };
    if (c.param.length > QUERY_PARAM_MAX)
      return { error: `must be at most ${QUERY_PARAM_MAX} characters`, at: 'param' };
    return value === undefined ? { type: 'query', param: c.param } : { type: 'query', param: c.param, value };
  }
  if (value === undefined) return { error: 'is required', at: 'value' };
  switch (c.type) {
    case 'language': {
      const tag = languageTagOf(value);
      return tag ? { type: 'language', value: tag } : { error: 'is not a BCP 47 language tag', at: 'value' };
    }
    case 'ip': {
      const range = ipRangeOf(value);
      return range ? { type: 'ip', value: range } : { error: 'is not an IPv4 or IPv6 address or CIDR', at: 'value' };
    }
    case 'country': {
      const code = countryCodeOf(value);
      return code
        ? { type: 'country', value: code }
        : { error: 'is not an ISO 3166-1 alpha-2 country code', at: 'value' };
    }
    case 'device':
      return (DEVICES as readonly string[]).includes(value)
        ? { type: 'device', value: value as DeviceValue }
        : { error: `must be one of ${DEVICES.join(', ')}`, at: 'value' };
    case 'after':
    case 'before': {
      const time = DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      return Number.isNaN(time)
        ? { error: 'must be an ISO 8601 date-time with a time zone', at: 'value' }
        : { type: c.type, value: new Date(time).toISOString() };
    }
  }
};

const conditionSchema = z.pipe(
  z
    .object({
      type: z.enum(CONDITION_TYPES),
      value: z.optional(z.string().check(z.maxLength(VALUE_MAX, `must be at most ${VALUE_MAX} characters`))),
      param: z.optional(z.string()),
    })
    .check(
      z.superRefine((c, ctx) => {
        const normalized = normalizeCondition(c);
        if ('error' in normalized)
          ctx.addIssue({ code: 'custom', path: [normalized.at], message: normalized.error, input: c[normalized.at] });
      }),
    ),
  z.transform((c: ConditionInput): RuleCondition => normalizeCondition(c) as RuleCondition),
);

const idSchema = z.string().check(z.regex(RULE_ID_PATTERN, 'must be 1-32 of A-Z, a-z, 0-9, _ and -'));

const ruleSchema = z
  .object({
    id: z.optional(idSchema),
    conditions: z
      .array(conditionSchema)
      .check(
        z.minLength(1, 'must have at least one condition'),
        z.maxLength(CONDITIONS_MAX, `must have at most ${CONDITIONS_MAX} conditions`),
      ),
    url: httpUrlSchema,
  })
  .check(
    z.superRefine((rule, ctx) => {
      const after = rule.conditions.findIndex((c) => c.type === 'after');
      const before = rule.conditions.findIndex((c) => c.type === 'before');
      const afterValue = rule.conditions[after]?.value;
      const beforeValue = rule.conditions[before]?.value;
      if (afterValue !== undefined && beforeValue !== undefined && Date.parse(afterValue) > Date.parse(beforeValue))
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', after, 'value'],
          message: 'is later than the rule\'s "before"',
          input: afterValue,
        });
    }),
  );

type WithId = { id?: string | undefined };

/** Duplicate ids in a list of rules or variants: an issue at `[i].id` for each repeat. */
const duplicateIds = (items: readonly WithId[], ctx: z.core.$RefinementCtx) => {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (item.id === undefined) return;
    if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'is used twice', input: item.id });
    seen.add(item.id);
  });
};

/** A rule's identity for "identical to an earlier one": its conditions (in any order) and url, not its id. */
const ruleIdentity = (rule: { conditions: RuleCondition[]; url: string }) =>
  JSON.stringify([rule.conditions.map((c) => JSON.stringify(c)).sort(), rule.url]);

/**
 * Redirect rules: at most 20, evaluated in order, the first whose conditions all match wins.
 * Ids are kept when given (unique), assigned by the service otherwise. A rule identical to an
 * earlier one (conditions and url) can never win and is refused.
 */
export const rulesSchema = z.nullable(
  z.array(ruleSchema).check(
    z.maxLength(RULES_MAX, `must have at most ${RULES_MAX} rules`),
    z.superRefine((rules, ctx) => {
      duplicateIds(rules, ctx);
      const seen = new Map<string, number>();
      rules.forEach((rule, i) => {
        const identity = ruleIdentity(rule);
        const earlier = seen.get(identity);
        if (earlier !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [i],
            message: `is identical to rules[${String(earlier)}]: it can never win`,
            input: rule,
          });
        else seen.set(identity, i);
      });
    }),
  ),
);

z.globalRegistry.add(rulesSchema, {
  description: `Redirect rules: at most ${RULES_MAX} of { id?, conditions (1-${CONDITIONS_MAX}, all must match), url }, evaluated in order; the first match wins, before platform overrides, geo and variants. Condition types: language (BCP 47; the most preferred Accept-Language entry, a value without a region matches any region), query (param, optional value), ip (IPv4/IPv6 address or CIDR), country (ISO 3166-1 alpha-2), device (ios, android, mobile, desktop), after / before (date-time). Ids are assigned when absent and kept when sent back. null clears.`,
});

const variantSchema = z.object({
  id: z.optional(idSchema),
  url: httpUrlSchema,
  weight: z.int().check(z.minimum(1, 'must be at least 1'), z.maximum(99, 'must be at most 99')),
});

/** A/B(/n) test: 2-4 variants, integer weights 1-99 summing to 100, distinct URLs, unique ids. */
export const variantsSchema = z.nullable(
  z.array(variantSchema).check(
    z.minLength(VARIANTS_MIN, `must have at least ${VARIANTS_MIN} variants`),
    z.maxLength(VARIANTS_MAX, `must have at most ${VARIANTS_MAX} variants`),
    z.superRefine((variants, ctx) => {
      duplicateIds(variants, ctx);
      const urls = new Set<string>();
      variants.forEach((variant, i) => {
        if (urls.has(variant.url))
          ctx.addIssue({
            code: 'custom',
            path: [i, 'url'],
            message: 'is used by an earlier variant',
            input: variant.url,
          });
        urls.add(variant.url);
      });
      const total = variants.reduce((sum, v) => sum + v.weight, 0);
      if (total !== 100)
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `weights must sum to 100 (they sum to ${String(total)})`,
          input: total,
        });
    }),
  ),
);

z.globalRegistry.add(variantsSchema, {
  description: `A/B(/n) test: ${VARIANTS_MIN}-${VARIANTS_MAX} of { id?, url, weight } (integer weights 1-99 summing to 100, distinct URLs). A visitor is assigned by a stable hash of the link id and a visitor key (the edge's first-party visitor cookie, 30 days), in proportion to the weights; applies after rules, platform overrides and geo. Ids are assigned when absent and kept when sent back. null clears.`,
});

export type RulesInput = z.infer<typeof rulesSchema>;
export type VariantsInput = z.infer<typeof variantsSchema>;
