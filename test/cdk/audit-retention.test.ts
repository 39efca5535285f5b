import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LinkServiceStack } from '@lib/link-service-stack';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const synthWith = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new LinkServiceStack(app, 'AuditRetentionStack', {
    env: { account: '111111111111', region: 'us-east-1' },
  });
  return { stack, template: Template.fromStack(stack) };
};

/** Each function's AUDIT_RETENTION_DAYS in the synthesized template, by handler (undefined: not set). */
const retentionsOf = ({ stack, template }: { stack: LinkServiceStack; template: Template }) => {
  const resources = template.toJSON().Resources as Record<
    string,
    { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
  >;
  return new Map(
    [...stack.functions].map(([handler, fn]) => [
      handler,
      resources[stack.getLogicalId(fn.node.defaultChild as never)]?.Properties.Environment?.Variables
        ?.AUDIT_RETENTION_DAYS,
    ]),
  );
};

/** The functions that write or read audit entries: their routes' grants name AUDIT#. */
const audited = new Set(
  routeTable
    .filter((r) => [...(r.grants.writes ?? []), ...(r.grants.reads ?? [])].includes('AUDIT#'))
    .map((r) => r.handler),
);

describe('the audit log retention setting (context auditRetentionDays)', () => {
  it('by default every function that writes or reads entries gets AUDIT_RETENTION_DAYS=400, and no other', () => {
    const retentions = retentionsOf(synthStack());
    expect(audited).toContain('links-create');
    expect(audited).toContain('audit-log-list');
    for (const [handler, days] of retentions) expect(days, handler).toBe(audited.has(handler) ? '400' : undefined);
    expect(retentions.get('edge-links')).toBeUndefined();
  });

  it('-c auditRetentionDays=730 sets 730 on every function that writes or reads entries', () => {
    const retentions = retentionsOf(synthWith({ auditRetentionDays: '730' }));
    for (const handler of audited) expect(retentions.get(handler), handler).toBe('730');
  });

  it('refuses at synth a value that is not a whole number from 1 to 3650, naming the setting', () => {
    for (const value of ['0', '2.5', 'forever', 3651]) {
      expect(() => synthWith({ auditRetentionDays: value }), String(value)).toThrow(
        `Context auditRetentionDays must be a whole number of days from 1 to 3650, got ${JSON.stringify(value)}`,
      );
    }
  });
});
