import * as z from '@shared/schemas/zod-mini';
import type { CredentialKind } from '@shared/auth/credential';

/** The three budgets a workspace has, one per kind of credential (server, client, legacy). */
export type RateLimitKind = 'server' | 'client' | 'legacy';

export interface RateLimits {
  serverPerMinute: number;
  clientPerMinute: number;
  legacyPerMinute: number;
}

/** Generous: a default must never trip a normal integration. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  serverPerMinute: 3_000,
  clientPerMinute: 30_000,
  legacyPerMinute: 3_000,
};

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 1_000_000;

/** One limit: a whole number of requests per minute, 1 to 1,000,000. */
export const perMinuteSchema = z.int().check(z.gte(RATE_LIMIT_MIN), z.lte(RATE_LIMIT_MAX));

/** What the workspace item may hold; any field left out takes the default. */
export const storedRateLimitsSchema = z.partial(
  z.object({ serverPerMinute: perMinuteSchema, clientPerMinute: perMinuteSchema, legacyPerMinute: perMinuteSchema }),
);

export const effectiveRateLimits = (stored: unknown): RateLimits => {
  const parsed = z.safeParse(storedRateLimitsSchema, stored ?? {});
  return { ...DEFAULT_RATE_LIMITS, ...(parsed.success ? parsed.data : {}) };
};

export const limitOf = (limits: RateLimits, kind: RateLimitKind): number =>
  kind === 'server' ? limits.serverPerMinute : kind === 'client' ? limits.clientPerMinute : limits.legacyPerMinute;

/** Which budget a route's credential draws on; undefined for routes without a credential. */
export const rateLimitKindOf = (credential: CredentialKind): RateLimitKind | undefined => {
  switch (credential) {
    case 'server':
    case 'app':
      return 'server';
    case 'publishable':
      return 'client';
    case 'legacy-mobile':
    case 'legacy-app':
      return 'legacy';
    case 'none':
      return undefined;
  }
};

/** The window: fixed one-minute windows (UTC minutes). */
export const WINDOW_SECONDS = 60;

/**
 * How a window's counter is spread over items. One DynamoDB partition key takes at most 1,000
 * write units per second, and every request is one write (a 1-unit `UpdateItem`), refused or
 * not, so the shards follow the traffic a workspace can send, not only its limit:
 *
 * - `maxShards`: the viral plan is 10,000 requests/s for one workspace (API Gateway's default
 *   account quota, everything one workspace could send; the edge's viral plan in docs/edge.md);
 *   20 shards take 500 writes/s each, half the per-key limit.
 * - `requestsPerShard`: no shard is given more than 500 admitted requests per window, so even a
 *   whole window's share arriving in one second is 500 writes/s on its item. Limits up to
 *   500/min count on one item, exactly (`RateLimit` `r` too).
 *
 * Refused requests: an instance that sees a shard over its share never writes it again in that
 * window (rate-limiter.ts), so refused traffic adds at most one write per instance and shard per
 * window. The bench's load run and `test/integration/hot-keys-load.test.ts` scale both numbers
 * and DynamoDB's per-key limits down by one factor.
 */
export interface CounterPlan {
  maxShards: number;
  requestsPerShard: number;
}

export const VIRAL_REQUESTS_PER_SECOND = 10_000;
/** Writes per second one key is planned for: half of DynamoDB's 1,000 (2x headroom). */
export const PLANNED_WRITES_PER_KEY = 500;

export const COUNTER_PLAN: CounterPlan = {
  maxShards: Math.ceil(VIRAL_REQUESTS_PER_SECOND / PLANNED_WRITES_PER_KEY),
  requestsPerShard: PLANNED_WRITES_PER_KEY,
};

/** Counter shards of one window for a limit: 1 up to 500/min, then one per 500, at most 20. */
export const shardCountFor = (limit: number, plan: CounterPlan = COUNTER_PLAN): number =>
  Math.min(plan.maxShards, Math.max(1, Math.ceil(limit / plan.requestsPerShard)));

/** Shard `i`'s share of `limit` (the shares add up to the limit exactly). */
export const shardBudget = (limit: number, shards: number, i: number): number =>
  Math.floor(limit / shards) + (i < limit % shards ? 1 : 0);
