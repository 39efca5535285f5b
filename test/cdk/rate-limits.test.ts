import { describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();

/** Every policy statement attached to a function's role, by route handler. */
const statementsOf = (handler: string) => {
  const fn = stack.functions.get(handler)!;
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as never);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as any[];
  return policies
    .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
};

describe('rate-limit counters after cdk deploy', () => {
  it('read-only limited routes may UpdateItem only RATE# partitions; write routes hold RATE# among their prefixes; unlimited routes cannot', () => {
    for (const route of routeTable) {
      if (!stack.functions.get(route.handler)) continue;
      // The counter-only grant of a read route; write routes hold RATE# among their own prefixes (least-privilege.test.ts).
      const counter = statementsOf(route.handler).filter(
        (s) => s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']?.join() === 'RATE#*',
      );
      if (route.grants.table === 'read' && rateLimitKindOf(route.credential)) {
        expect(counter, route.handler).toHaveLength(1);
        expect(counter[0]).toMatchObject({
          Action: 'dynamodb:UpdateItem',
          Effect: 'Allow',
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
        });
      } else {
        expect(counter, route.handler).toHaveLength(0);
      }
    }
    expect(stack.functions.get('links-get')).toBeDefined();
  });
});
