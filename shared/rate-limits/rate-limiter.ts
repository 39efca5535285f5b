import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import {
  effectiveRateLimits,
  limitOf,
  shardBudget,
  shardCountFor,
  WINDOW_SECONDS,
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
  /** Requests left in this window (exact up to 20,000/min; an estimate from one shard above). */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  limited: boolean;
}

let clock = (): number => Date.now();

/** Tests pin the limiter's clock inside one window (a window edge between two requests would reset the count). */
export const setRateLimitClock = (now: (() => number) | undefined): void => {
  clock = now ?? (() => Date.now());
};

const limitsCache = new Map<string, { limits: RateLimits; until: number }>();

/** Forgets cached limits (a test or the local stack after `admin set-rate-limits`). */
export const clearRateLimitCache = (): void => {
  limitsCache.clear();
};

const limitsOf = async (workspaceId: string, nowMs: number): Promise<RateLimits> => {
  const hit = limitsCache.get(workspaceId);
  if (hit && hit.until > nowMs) return hit.limits;
  const workspace = await workspaceRepository.findById(workspaceId);
  const limits = effectiveRateLimits(workspace?.rateLimits);
  if (limitsCache.size > 10_000) limitsCache.clear();
  limitsCache.set(workspaceId, { limits, until: nowMs + LIMITS_CACHE_SECONDS * 1000 });
  return limits;
};

/**
 * Counts one request against the workspace's budget of this kind in the current fixed
 * one-minute window: one UpdateItem (ADD) on one counter shard, picked at random, whose share
 * of the limit it checks. Counts live in the table, so every Lambda instance shares them.
 */
export const countRequest = async (
  workspaceId: string,
  kind: RateLimitKind,
  nowMs = clock(),
  random = Math.random,
): Promise<RateDecision> => {
  const limit = limitOf(await limitsOf(workspaceId, nowMs), kind);
  const windowStart = Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  const resetSeconds = Math.max(1, Math.ceil(windowStart + WINDOW_SECONDS - nowMs / 1000));
  const shards = shardCountFor(limit);
  const shard = Math.min(shards - 1, Math.floor(random() * shards));
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
  const limited = count > budget;
  const remaining = Math.min(limit, Math.max(0, budget - count) * shards);
  return { kind, limit, remaining, resetSeconds, limited };
};
