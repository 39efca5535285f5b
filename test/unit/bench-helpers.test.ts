import { describe, expect, it } from 'vitest';
import {
  costPerMillion,
  extendedRetentionPerShardMonth,
  frontDoorAtRestPerMonth,
  frontDoorBudget,
  frontDoorPerMillion,
  keptFailuresPerMillion,
} from '@bench/cost';
import { keptFailuresCost } from '@bench/kept-failures-cost';
import { prices } from '@bench/prices';
import { median, percentile } from '@bench/stats';

describe('bench percentile', () => {
  it('takes the nearest-rank value', () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(median(values)).toBe(5);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('bench cost per million', () => {
  it('adds Lambda, HTTP API, DynamoDB and the event stream (a Kinesis PUT unit per record, Firehose with 5 KB rounding)', () => {
    const cost = costPerMillion({
      memoryMb: 512,
      durationMs: 9.2,
      readUnits: 0.5,
      writeUnits: 1,
      events: 1,
      eventBytes: 700,
      logBytes: 0,
      traceRate: 0,
    });
    // 0.5 GB x 0.010 s x $0.0000133334 x 1e6 + $0.20
    expect(cost.lambda).toBeCloseTo(0.5 * 0.01 * prices.lambdaArmGbSecond * 1e6 + 0.2, 4);
    expect(cost.httpApi).toBe(1);
    expect(cost.dynamodb).toBeCloseTo(0.0625 + 0.625, 4);
    const fiveKb = 5 * 1024;
    expect(cost.events).toBeCloseTo(0.014 + 1e6 * ((fiveKb / 1024 ** 3) * 0.029 + (700 / 1024 ** 3) * 0.02), 4);
    expect(cost.counters).toBe(0);
    expect(cost.total).toBeCloseTo(cost.lambda + cost.httpApi + cost.dynamodb + cost.events, 3);
  });

  it('rounds a record of 5 KB + 1 byte up to 10 KB', () => {
    const small = costPerMillion({
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: 5 * 1024,
      logBytes: 0,
      traceRate: 0,
    });
    const big = costPerMillion({
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: 5 * 1024 + 1,
      logBytes: 0,
      traceRate: 0,
    });
    // One more 5 KB of ingestion per record (dynamic partitioning counts actual bytes).
    expect(big.events - small.events).toBeCloseTo(1e6 * ((5 * 1024) / 1024 ** 3) * 0.029, 3);
  });

  it('adds CloudWatch Logs ingestion of the log bytes and X-Ray traces at the sampling rate', () => {
    const cost = costPerMillion({
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 0,
      eventBytes: 0,
      logBytes: 1000,
      traceRate: 0.001,
    });
    // 1e6 x 1000 B = ~0.93 GB at $0.50; 1,000 traces at $5 per million.
    expect(cost.logs).toBeCloseTo(1e6 * (1000 / 1024 ** 3) * prices.logsIngestGb, 4);
    expect(cost.xray).toBeCloseTo(0.005, 4);
    expect(cost.total).toBeCloseTo(cost.lambda + cost.httpApi + cost.logs + cost.xray, 3);
  });

  it('prices an edge operation at the front door instead of API Gateway, in its own columns, within budget', () => {
    const base = { memoryMb: 512, durationMs: 9, readUnits: 0.5, writeUnits: 1, events: 1, eventBytes: 700 };
    const api = costPerMillion(base);
    const wafOn = costPerMillion({ ...base, via: 'edge' });
    const wafOff = costPerMillion({ ...base, via: 'edge', waf: false });
    expect(api).toMatchObject({ cloudFront: 0, cloudFrontFunction: 0, waf: 0 });
    expect(wafOn).toMatchObject({ httpApi: 0, cloudFront: 1, cloudFrontFunction: 0.1, waf: 0.6 });
    expect(wafOff.waf).toBe(0);
    expect(wafOn.total).toBeCloseTo(wafOn.lambda + wafOn.dynamodb + wafOn.events + 1.7, 3);
    expect(frontDoorPerMillion(wafOn)).toBeCloseTo(1.7, 4);
    expect(frontDoorPerMillion(wafOn)).toBeLessThanOrEqual(frontDoorBudget.wafOn);
    expect(frontDoorPerMillion(wafOff)).toBeCloseTo(1.1, 4);
    expect(frontDoorPerMillion(wafOff)).toBeLessThanOrEqual(frontDoorBudget.wafOff);
  });

  it("prices a click's counter work at its batch size: one update and one consumer invocation per batch", () => {
    const counters = { clicks: 1, counterWriteUnits: 2, consumerDurationMs: 40, consumerMemoryMb: 1024 };
    const hot = costPerMillion({
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: 700,
      counters: { ...counters, clicksPerBatch: 1000 },
    });
    const cold = costPerMillion({
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: 700,
      counters: { ...counters, clicksPerBatch: 1 },
    });
    const perBatch = 2 * prices.dynamoWriteUnit + 1 * 0.04 * prices.lambdaArmGbSecond + prices.lambdaRequest;
    expect(cold.counters).toBeCloseTo(1e6 * perBatch, 4);
    expect(hot.counters).toBeCloseTo((1e6 * perBatch) / 1000, 4);
  });

  it('adds the settle of duplicates to the counter work: one read and one update per settle', () => {
    const base = {
      memoryMb: 512,
      durationMs: 1,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: 700,
    };
    const counters = {
      clicks: 1,
      clicksPerBatch: 1,
      counterWriteUnits: 3,
      consumerDurationMs: 16,
      consumerMemoryMb: 512,
    };
    const without = costPerMillion({ ...base, counters });
    const settle = { readUnits: 1, writeUnits: 3, clicksPerSettle: 1 };
    const withSettle = costPerMillion({ ...base, counters: { ...counters, settle } });
    const perSettle = 1 * prices.dynamoReadUnit + 3 * prices.dynamoWriteUnit;
    expect(withSettle.counters - without.counters).toBeCloseTo(1e6 * perSettle, 3);
    const hot = costPerMillion({ ...base, counters: { ...counters, settle: { ...settle, clicksPerSettle: 1000 } } });
    expect(hot.counters - without.counters).toBeCloseTo((1e6 * perSettle) / 1000, 3);
  });

  it('puts the front door at rest at the web ACL, its rules and the origin secret', () => {
    expect(frontDoorAtRestPerMonth({ waf: true, wafRules: 6 })).toBeCloseTo(5 + 6 + 0.4, 4);
    expect(frontDoorAtRestPerMonth({ waf: false, wafRules: 6 })).toBeCloseTo(0.4, 4);
  });

  it('prices keeping failures per million clicks: a PutObject per kept batch, its bytes for the kept days, the replay', () => {
    const all = keptFailuresPerMillion({
      documentBytes: 1_500_000,
      recordsPerBatch: 1000,
      keptDays: 30,
      failedShare: 1,
    });
    // 1,000 batches: 1,000 PUTs, 1.5 GB-months, 1,000 GETs and one LIST.
    expect(all.put).toBeCloseTo(1000 * prices.s3PutRequest, 4);
    expect(all.storage).toBeCloseTo(((1000 * 1_500_000) / 1024 ** 3) * prices.s3StandardGbMonth, 4);
    expect(all.replay).toBeCloseTo(1000 * prices.s3GetRequest + prices.s3PutRequest, 4);
    expect(all.total).toBeCloseTo(all.put + all.storage + all.replay, 3);
    const none = keptFailuresPerMillion({
      documentBytes: 1_500_000,
      recordsPerBatch: 1000,
      keptDays: 30,
      failedShare: 0,
    });
    expect(none.total).toBe(0);
    // Seven days of stream retention instead: $0.02 per shard-hour.
    expect(extendedRetentionPerShardMonth()).toBeCloseTo(0.02 * 24 * 30, 4);
  });

  it('measures the kept document (click records in base64 with their metadata) and prices each stated case', () => {
    const cost = keptFailuresCost(750);
    // Base64 makes 750 bytes 1,000; each record also carries its ids, ARNs and sequence number.
    expect(cost.singleRecordBytes).toBeGreaterThan(1000);
    expect(cost.fullBatchBytes).toBeGreaterThan(1000 * 1000);
    expect(cost.fullBatchBytes).toBeLessThan(1000 * cost.singleRecordBytes);
    const [fullBatches, singleClicks, someFailed] = cost.rows;
    expect(fullBatches!.failedShare).toBe(1);
    // Batches of one click pay a PutObject per click: far more than full batches.
    expect(singleClicks!.total).toBeGreaterThan(100 * fullBatches!.total);
    expect(singleClicks!.put).toBeCloseTo(1e6 * prices.s3PutRequest, 4);
    expect(someFailed!.failedShare).toBe(0.01);
    expect(someFailed!.total).toBeLessThanOrEqual(fullBatches!.total / 100);
  });
});
