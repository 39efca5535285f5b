/**
 * Redirect rules and A/B-test variants as stored on a link (and on its slug item, the redirect
 * record). Plain types only: the edge reads them on every click, the schemas build them.
 */

export type DeviceValue = 'ios' | 'android' | 'mobile' | 'desktop';

export type RuleCondition =
  /** The visitor's most preferred language; a value without a region matches any region. */
  | { type: 'language'; value: string }
  /** The short link was requested with this query parameter (equal to `value` when given). */
  | { type: 'query'; param: string; value?: string }
  /** The viewer's address is in this CIDR (stored normalised), or equal to this address. */
  | { type: 'ip'; value: string }
  /** ISO 3166-1 alpha-2, upper-case. */
  | { type: 'country'; value: string }
  | { type: 'device'; value: DeviceValue }
  /** The click's time is at or after this instant (ISO 8601, UTC). */
  | { type: 'after'; value: string }
  /** The click's time is before this instant (ISO 8601, UTC). */
  | { type: 'before'; value: string };

export type ConditionType = RuleCondition['type'];

export interface RedirectRule {
  id: string;
  conditions: RuleCondition[];
  url: string;
}

export interface Variant {
  id: string;
  url: string;
  weight: number;
}

export const RULES_MAX = 20;
export const CONDITIONS_MAX = 10;
export const VARIANTS_MIN = 2;
export const VARIANTS_MAX = 4;
export const QUERY_PARAM_MAX = 100;
/** Rule and variant ids: given by the client, or 8 base62 characters assigned by the service. */
export const RULE_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const ASSIGNED_ID_LENGTH = 8;
