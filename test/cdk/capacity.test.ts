import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { edgeConcurrencyNeeded } from '@lib/capacity';
import { LinkServiceStack } from '@lib/link-service-stack';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const synthWith = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new LinkServiceStack(app, 'CapacityStack', { env: { account: '111111111111', region: 'us-east-1' } });
  return { stack, template: Template.fromStack(stack) };
};
const reservationsOf = (stack: LinkServiceStack, template: Template) => {
  const resources = template.toJSON().Resources as Record<string, any>;
  return Object.fromEntries(
    [...stack.functions].map(([handler, fn]) => [
      handler,
      resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties.ReservedConcurrentExecutions,
    ]),
  );
};
const stageThrottles = (template: Template) =>
  Object.values(template.findResources('AWS::ApiGatewayV2::Stage')).map((s: any) => s.Properties.DefaultRouteSettings);

describe('capacity settings', () => {
  it('by default: no reservation anywhere, and no stage burst above the account quota (5,000)', () => {
    const { stack, template } = synthStack();
    expect(Object.values(reservationsOf(stack, template)).every((r) => r === undefined)).toBe(true);
    for (const throttle of stageThrottles(template)) {
      expect(throttle.ThrottlingBurstLimit).toBeLessThanOrEqual(5_000);
      expect(throttle.ThrottlingRateLimit).toBeLessThanOrEqual(10_000);
    }
  });

  it('context values reserve the click path and cap the analytics functions', () => {
    const { stack, template } = synthWith({
      clickPathReservedConcurrency: 200,
      analyticsReservedConcurrency: 5,
      accountConcurrency: 3000,
    });
    const reservations = reservationsOf(stack, template);
    expect(reservations['edge-links']).toBe(200);
    expect(reservations['client-click']).toBe(200);
    for (const route of routeTable.filter((r) => r.grants.analytics)) expect(reservations[route.handler]).toBe(5);
    expect(reservations['links-create']).toBeUndefined();
  });

  it('refuses settings that would fail the deploy or never apply', () => {
    expect(() => synthWith({ clickPathReservedConcurrency: 500 })).toThrow(/unreserved/);
    expect(() => synthWith({ serviceBurstLimit: 10_000 })).toThrow(/burst quota/);
    expect(() => synthWith({ clickPathReservedConcurrency: 'many' })).toThrow(/positive integer/);
  });

  it('lets an operator with raised quotas set them', () => {
    const { template } = synthWith({ apiBurstQuota: 10_000, serviceBurstLimit: 10_000 });
    expect(stageThrottles(template).map((t) => t.ThrottlingBurstLimit)).toContain(10_000);
  });

  describe("the edge's plan (a link at 10,000 clicks/s)", () => {
    const edgeWarnings = (stack: LinkServiceStack) =>
      Annotations.fromStack(stack)
        .findWarning('*', Match.stringLikeRegexp('edge-links'))
        .map((w) => (typeof w.entry.data === 'string' ? w.entry.data : JSON.stringify(w.entry.data)));

    it('by default plans 2,000 clicks/s at 20 ms (40 concurrent executions), which the default pool and the default 2 shards take: no warning', () => {
      const { stack } = synthStack();
      expect(stack.capacity.edge).toEqual({ clicksPerSecond: 2_000, clickDurationMs: 20 });
      expect(edgeConcurrencyNeeded(stack.capacity)).toBe(40);
      expect(edgeWarnings(stack)).toEqual([]);
    });

    it("a viral link's plan (10,000 clicks/s) warns about the default stream; enough shards (or on-demand) clear it", () => {
      const viral = edgeWarnings(synthStack({ edgeClicksPerSecond: '10000' }).stack);
      expect(viral).toHaveLength(1);
      expect(viral[0]).toMatch(
        /10000 records\/s on the event stream, but its 2 shards take 2000\/s .*-c eventStreamShards=10 or on-demand/,
      );
      expect(edgeWarnings(synthStack({ edgeClicksPerSecond: '10000', eventStreamShards: '10' }).stack)).toEqual([]);
      expect(edgeWarnings(synthStack({ edgeClicksPerSecond: '10000', eventStreamShards: 'on-demand' }).stack)).toEqual(
        [],
      );
    });

    it('warns when the click-path reservation caps edge-links below the planned rate', () => {
      const { stack } = synthWith({
        edgeClicksPerSecond: 20_000,
        edgeClickDurationMs: 30,
        clickPathReservedConcurrency: 200,
        accountConcurrency: 3000,
        eventStreamShards: 'on-demand',
      });
      expect(edgeConcurrencyNeeded(stack.capacity)).toBe(600);
      const warnings = edgeWarnings(stack);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(/reserved concurrency \(200, also its maximum\) caps it at 6666 clicks\/s/);
      expect(warnings[1]).toMatch(/at most 10 requests\/s per unit of concurrency, 2000\/s with 200/);
    });

    it("warns when the account's unreserved pool, or Lambda's 10 requests/s per unit of concurrency, falls short", () => {
      const { stack } = synthWith({
        edgeClicksPerSecond: 50_000,
        edgeClickDurationMs: 25,
        analyticsReservedConcurrency: 10,
        eventStreamShards: 'on-demand',
      });
      const warnings = edgeWarnings(stack);
      expect(
        warnings.some((w) =>
          /needs 1250 concurrent executions of edge-links, but the account's unreserved concurrency is \d+ \(1000 less \d+ reserved\)/.test(
            w,
          ),
        ),
      ).toBe(true);
      expect(warnings.some((w) => /at most 10 requests\/s per unit of concurrency/.test(w))).toBe(true);
    });

    it('a raised quota set as context clears the warnings', () => {
      const { stack } = synthWith({
        edgeClicksPerSecond: 50_000,
        edgeClickDurationMs: 25,
        accountConcurrency: 6000,
        eventStreamShards: 50,
      });
      expect(edgeWarnings(stack)).toEqual([]);
    });

    it('refuses plan values that are not positive integers', () => {
      expect(() => synthWith({ edgeClicksPerSecond: 'viral' })).toThrow(
        /edgeClicksPerSecond must be a positive integer/,
      );
      expect(() => synthWith({ edgeClickDurationMs: 0 })).toThrow(/edgeClickDurationMs must be a positive integer/);
    });
  });
});
