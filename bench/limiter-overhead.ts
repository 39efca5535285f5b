import { importBundle, invoke } from './lambda-invoke';
import { operations } from './operations';
import { prices } from './prices';
import { must } from './must';
import { percentile, round } from './stats';
import type { World } from './world';

export interface LimiterOverhead {
  operation: string;
  samples: number;
  withLimiter: { p50: number; p99: number };
  withoutLimiter: { p50: number; p99: number };
  overheadP50Ms: number;
  p50Ratio: number;
  /** DynamoDB calls the limiter adds per request (the workspace limits are cached per instance). */
  callsAdded: string[];
  /** One counter UpdateItem (1 WRU, item well under 1 KB) per limited request. */
  costPerMillionUsd: number;
}

/**
 * The limiter's own cost on GET link: the same bundle, invoked warm and interleaved, with the
 * limiter on and switched off (RATE_LIMITS=off, the operator's kill switch); the side without
 * it makes none of the limiter's calls (nothing is replayed for it).
 */
export const measureLimiterOverhead = async (
  world: World,
  dynamoEndpoint: string,
  samples: number,
): Promise<LimiterOverhead> => {
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  const op = must(operations.get, 'GET link operation');
  const handler = await importBundle(op.handler, 'limiter-overhead');
  const on: number[] = [];
  const off: number[] = [];
  const warmup = Math.max(100, Math.round(samples / 3));
  try {
    for (let n = -warmup; n < samples; n++) {
      const request = op.request(world, 70_000 + n);
      delete process.env.RATE_LIMITS;
      const a = performance.now();
      await invoke(handler, request, op.expect);
      const b = performance.now();
      process.env.RATE_LIMITS = 'off';
      await invoke(handler, request, op.expect);
      const c = performance.now();
      if (n >= 0) {
        on.push(b - a);
        off.push(c - b);
      }
    }
  } finally {
    delete process.env.RATE_LIMITS;
  }
  const summary = (v: number[]) => ({ p50: round(percentile(v, 50), 3), p99: round(percentile(v, 99), 3) });
  const withLimiter = summary(on);
  const withoutLimiter = summary(off);
  return {
    operation: op.name,
    samples,
    withLimiter,
    withoutLimiter,
    overheadP50Ms: round(withLimiter.p50 - withoutLimiter.p50, 3),
    p50Ratio: round(withLimiter.p50 / withoutLimiter.p50, 2),
    callsAdded: ['UpdateItem'],
    costPerMillionUsd: round(prices.dynamoWriteUnit * 1_000_000, 3),
  };
};
