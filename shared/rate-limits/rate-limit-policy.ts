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
 * Counter shards of one window. One DynamoDB partition takes at most 1,000 writes per second;
 * with one shard per 20,000 requests per minute, the maximum limit (1,000,000/min = 16,667/s
 * spread evenly) is 50 shards at about 333 writes/s each, and even a burst at API Gateway's
 * default account throttle (10,000 requests/s) stays at 200 writes/s per shard. Limits up to
 * 20,000/min count on one item, exactly.
 */
export const REQUESTS_PER_SHARD = 20_000;
export const shardCountFor = (limit: number): number => Math.max(1, Math.ceil(limit / REQUESTS_PER_SHARD));

/** Shard `i`'s share of `limit` (the shares add up to the limit exactly). */
export const shardBudget = (limit: number, shards: number, i: number): number =>
  Math.floor(limit / shards) + (i < limit % shards ? 1 : 0);
