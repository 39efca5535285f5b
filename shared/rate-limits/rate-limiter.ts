import { LRUCache } from 'lru-cache';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { clockNow } from '@shared/runtime/services';
import {
  effectiveRateLimits,
  limitOf,
  shardBudget,
  shardCountFor,
  COUNTER_PLAN,
  WINDOW_SECONDS,
  type CounterPlan,
  type RateLimitKind,
  type RateLimits,
} from './rate-limit-policy';

/** How long one Lambda instance keeps a workspace's limits before reading them again. */
export const LIMITS_CACHE_SECONDS = 10;
/** Counters outlive their window by this much, then DynamoDB's TTL removes them. */
const COUNTER_TTL_SECONDS = 3600;

export interface RateDecision {
  kind: RateLimitKind;
  limit: number;
  /** Requests left in this window (exact up to 500/min, on one item; an estimate from one shard above). */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  limited: boolean;
}

/** At most 10,000 workspaces' limits (lru-cache); each for LIMITS_CACHE_SECONDS on the limiter's clock. */
const limitsCache = new LRUCache<string, { limits: RateLimits; until: number }>({ max: 10_000 });

/**
 * Shards this instance saw over their share, per workspace, budget, window and limit. Within a
 * window a shard's count only grows, so a shard seen full stays full: the instance counts no
 * more requests on it (refused traffic does not keep writing the same items).
 */
const fullShards = new Map<string, Set<number>>();

/** Forgets cached limits and full shards (a test or the local stack after `admin set-rate-limits`). */
export const clearRateLimitCache = (): void => {
  limitsCache.clear();
  fullShards.clear();
};

const limitsOf = async (workspaceId: string, nowMs: number): Promise<RateLimits> => {
  const hit = limitsCache.get(workspaceId);
  if (hit && hit.until > nowMs) return hit.limits;
  const workspace = await workspaceRepository.findById(workspaceId);
  const limits = effectiveRateLimits(workspace?.rateLimits);
  limitsCache.set(workspaceId, { limits, until: nowMs + LIMITS_CACHE_SECONDS * 1000 });
  return limits;
};

let fullShardsWindow = 0;

/**
 * The instance deals its requests over the open shards in turn (from a random start, so
 * instances started together do not all begin on shard 0): every shard takes an even share of
 * the traffic, not a random one.
 */
let nextShard = Math.floor(Math.random() * 1_000_000);

/** The full shards noted for one counter; a new window forgets every older one. */
const fullShardsOf = (key: string, windowStart: number): Set<number> => {
  if (windowStart !== fullShardsWindow || fullShards.size > 10_000) {
    fullShards.clear();
    fullShardsWindow = windowStart;
  }
  let full = fullShards.get(key);
  if (!full) {
    full = new Set();
    fullShards.set(key, full);
  }
  return full;
};

/**
 * Counts one request against the workspace's budget of this kind in the current fixed
 * one-minute window: one UpdateItem (ADD) on one counter shard, the next in turn among those
 * this instance has not seen full, whose share of the limit it checks. A shard found over its
 * share is noted and the request tries another; it is refused only when every shard is full, so
 * a workspace gets exactly its limit per window whatever the number of shards. Counts live in
 * the table, so every Lambda instance shares them.
 */
export const countRequest = async (
  workspaceId: string,
  kind: RateLimitKind,
  // Tests pin this clock inside one window (a window edge between two requests would reset the count).
  nowMs = clockNow('rateLimit'),
  plan: CounterPlan = COUNTER_PLAN,
): Promise<RateDecision> => {
  const limit = limitOf(await limitsOf(workspaceId, nowMs), kind);
  const windowStart = Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  const resetSeconds = Math.max(1, Math.ceil(windowStart + WINDOW_SECONDS - nowMs / 1000));
  const shards = shardCountFor(limit, plan);
  const full = fullShardsOf(`${workspaceId}#${kind}#${limit}`, windowStart);
  for (;;) {
    const open = Array.from({ length: shards }, (_, i) => i).filter((i) => !full.has(i));
    const shard = open[nextShard++ % Math.max(1, open.length)];
    if (shard === undefined) return { kind, limit, remaining: 0, resetSeconds, limited: true };
    const budget = shardBudget(limit, shards, shard);
    const out = await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateCounter(workspaceId, kind, windowStart, shard),
        UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl), #type = if_not_exists(#type, :type)',
        ExpressionAttributeNames: { '#n': 'n', '#ttl': 'ttl', '#type': 'type' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':ttl': windowStart + WINDOW_SECONDS + COUNTER_TTL_SECONDS,
          ':type': 'RATE',
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const count = Number(out.Attributes?.n ?? 1);
    if (count >= budget) full.add(shard);
    if (count <= budget) {
      // Exact on one shard; above, this shard's room times the shards still open (an estimate).
      const open = shards - full.size + (full.has(shard) ? 1 : 0);
      return { kind, limit, remaining: Math.min(limit, (budget - count) * open), resetSeconds, limited: false };
    }
  }
};
