import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
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
    [...stack.functions].map(([handler, fn]) => [handler, resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties.ReservedConcurrentExecutions]),
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
    const { stack, template } = synthWith({ clickPathReservedConcurrency: 200, analyticsReservedConcurrency: 5, accountConcurrency: 3000 });
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
});
