import { describe, expect, it } from 'vitest';
import { edgeRoutes } from '@shared/routes/edge-routes';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;

const actionsOf = (handler: string): string[] => {
  const roleId = stack.getLogicalId(stack.functions.get(handler)!.role.node.defaultChild as never);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: any) => role.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement.flatMap((s: any) => [s.Action].flat()));
};

describe('CDK: the short-link edge', () => {
  it('serves no edge route through API Gateway: the edge is function URLs behind CloudFront', () => {
    const routes = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
    const edgeKeys = edgeRoutes.filter((r) => r.path !== '$default').map((r) => `${r.method} ${r.path}`);
    expect(routes.filter((r) => edgeKeys.includes(r.Properties.RouteKey))).toEqual([]);
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Api')).toHaveLength(1);
  });

  it('gives write access only to the function that moves counters (clicks, password tries)', () => {
    expect(actionsOf('edge-links')).toContain('dynamodb:UpdateItem');
    expect(actionsOf('edge-links')).toContain('kinesis:PutRecords');
    for (const handler of ['edge-well-known', 'edge-launch-events']) {
      const actions = actionsOf(handler);
      expect(actions).toContain('dynamodb:GetItem');
      for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
        expect(actions).not.toContain(write);
    }
  });

  it('runs one function per edge handler, each with a streaming function URL (auth NONE)', () => {
    const handlers = new Set(edgeRoutes.map((r) => r.handler));
    expect([...handlers].sort()).toEqual(['edge-launch-events', 'edge-links', 'edge-well-known']);
    const urls = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Url');
    expect(urls).toHaveLength(handlers.size);
    for (const handler of handlers) {
      const fnId = stack.getLogicalId(stack.functions.get(handler)!.node.defaultChild as never);
      const url = urls.find((u) => u.Properties.TargetFunctionArn['Fn::GetAtt']?.[0] === fnId);
      expect(url, handler).toBeDefined();
      expect(url!.Properties).toMatchObject({ AuthType: 'NONE', InvokeMode: 'RESPONSE_STREAM' });
      // Since October 2025 a public function URL needs both permissions.
      const permissions = Object.values(resources).filter(
        (r) => r.Type === 'AWS::Lambda::Permission' && r.Properties.FunctionName['Fn::GetAtt']?.[0] === fnId,
      );
      expect(permissions.map((p) => p.Properties.Action).sort()).toEqual([
        'lambda:InvokeFunction',
        'lambda:InvokeFunctionUrl',
      ]);
      expect(permissions.every((p) => p.Properties.Principal === '*')).toBe(true);
    }
  });
});
