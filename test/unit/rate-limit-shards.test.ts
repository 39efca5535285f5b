import { describe, expect, it } from 'vitest';
import {
  COUNTER_PLAN,
  PLANNED_WRITES_PER_KEY,
  shardBudget,
  shardCountFor,
  VIRAL_REQUESTS_PER_SECOND,
} from '@shared/rate-limits/rate-limit-policy';

/** DynamoDB's write limit of one partition key, units per second (a counter update is one unit). */
const KEY_WRITE_LIMIT = 1_000;

describe('rate-limit counter shards (sized by traffic)', () => {
  it('the viral burst (10,000 requests/s of one workspace, refused or not) is 500 writes/s per shard: half a key', () => {
    expect(COUNTER_PLAN.maxShards).toBe(20);
    expect(VIRAL_REQUESTS_PER_SECOND / COUNTER_PLAN.maxShards).toBe(PLANNED_WRITES_PER_KEY);
    expect(PLANNED_WRITES_PER_KEY * 2).toBe(KEY_WRITE_LIMIT);
  });

  it('one item up to 500/min (exact), then one shard per 500, at most 20; shares add up to the limit exactly', () => {
    expect(shardCountFor(1)).toBe(1);
    expect(shardCountFor(500)).toBe(1);
    expect(shardCountFor(501)).toBe(2);
    // The default server limit: 6 shards, not one item taking a whole burst.
    expect(shardCountFor(3_000)).toBe(6);
    expect(shardCountFor(10_000)).toBe(20);
    expect(shardCountFor(1_000_000)).toBe(20);
    for (const limit of [1, 7, 500, 501, 3_000, 20_001, 333_333, 999_999, 1_000_000]) {
      const shards = shardCountFor(limit);
      const shares = Array.from({ length: shards }, (_, i) => shardBudget(limit, shards, i));
      expect(
        shares.reduce((a, b) => a + b, 0),
        String(limit),
      ).toBe(limit);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
      // Per shard and second: a whole window's share at once (small limits), or an even share of
      // the viral burst (large ones): never past the planned 500 writes/s.
      const perSecond = Math.min(Math.max(...shares), VIRAL_REQUESTS_PER_SECOND / shards);
      expect(perSecond, String(limit)).toBeLessThanOrEqual(PLANNED_WRITES_PER_KEY);
    }
  });

  it('a scaled plan keeps the shard counts', () => {
    const scaled = { maxShards: COUNTER_PLAN.maxShards, requestsPerShard: COUNTER_PLAN.requestsPerShard / 100 };
    for (const limit of [500, 3_000, 30_000, 1_000_000])
      expect(shardCountFor(limit / 100, scaled), String(limit)).toBe(shardCountFor(limit));
  });
});
