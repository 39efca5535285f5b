import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LinkServiceStack } from '@lib/link-service-stack';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const synthWith = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new LinkServiceStack(app, 'AuthLimitStack', { env: { account: '111111111111', region: 'us-east-1' } });
  return { stack, template: Template.fromStack(stack) };
};

/** Each function's AUTH_FAILURE_LIMIT in the synthesized template, by handler (undefined: not set). */
const limitsOf = ({ stack, template }: { stack: LinkServiceStack; template: Template }) => {
  const resources = template.toJSON().Resources as Record<
    string,
    { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
  >;
  return new Map(
    [...stack.functions].map(([handler, fn]) => [
      handler,
      resources[stack.getLogicalId(fn.node.defaultChild as never)]?.Properties.Environment?.Variables
        ?.AUTH_FAILURE_LIMIT,
    ]),
  );
};

const keyed = new Set(routeTable.filter((r) => r.credential !== 'none' || r.authenticatesKey).map((r) => r.handler));

describe('the failed-key limit setting (context authFailureLimit)', () => {
  it('by default every keyed function gets AUTH_FAILURE_LIMIT=100, and no public function gets it', () => {
    const limits = limitsOf(synthStack());
    expect(keyed.size).toBeGreaterThan(10);
    for (const [handler, limit] of limits) expect(limit, handler).toBe(keyed.has(handler) ? '100' : undefined);
    expect(limits.get('edge-links')).toBeUndefined();
  });

  it('-c authFailureLimit=25 sets 25 on every keyed function', () => {
    const limits = limitsOf(synthWith({ authFailureLimit: '25' }));
    for (const handler of keyed) expect(limits.get(handler), handler).toBe('25');
  });

  it('refuses at synth a value that is not a whole number from 1 to 100000, naming the setting', () => {
    for (const value of ['0', '-1', '2.5', 'lots', 100_001]) {
      expect(() => synthWith({ authFailureLimit: value }), String(value)).toThrow(
        `Context authFailureLimit must be a whole number from 1 to 100000 (failed API keys per address per 5 minutes), got ${JSON.stringify(value)}`,
      );
    }
  });
});
