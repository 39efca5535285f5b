import { describe, expect, it } from 'vitest';
import { edgeRoutes } from '@shared/routes/edge-routes';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const edgeApiId = stack.getLogicalId(stack.edgeApi.node.defaultChild as never);
const serviceApiId = stack.getLogicalId(stack.serviceApi.node.defaultChild as never);

const actionsOf = (handler: string): string[] => {
  const roleId = stack.getLogicalId(stack.functions.get(handler)!.role!.node.defaultChild as never);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: any) => role.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement.flatMap((s: any) => [s.Action].flat()));
};

describe('CDK: the short-link edge', () => {
  it('puts every edge route (GET, HEAD, POST, well-known, $default) on the EdgeApi and none on the service API', () => {
    const routes = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
    for (const route of edgeRoutes) {
      const key = route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
      const onEdge = routes.filter((r) => r.Properties.RouteKey === key && r.Properties.ApiId.Ref === edgeApiId);
      expect(onEdge, key).toHaveLength(1);
    }
    const edgeKeys = edgeRoutes.filter((r) => r.path !== '$default').map((r) => `${r.method} ${r.path}`);
    expect(routes.filter((r) => r.Properties.ApiId.Ref === serviceApiId && edgeKeys.includes(r.Properties.RouteKey))).toEqual([]);
  });

  it('gives write access only to the functions that move counters', () => {
    for (const handler of ['edge-redirect', 'edge-password']) expect(actionsOf(handler)).toContain('dynamodb:UpdateItem');
    for (const handler of ['edge-well-known', 'edge-launch-events', 'edge-fallback']) {
      const actions = actionsOf(handler);
      expect(actions).toContain('dynamodb:GetItem');
      for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) expect(actions).not.toContain(write);
    }
  });

  it('runs one function per edge handler, HEAD and GET sharing the redirect function', () => {
    const handlers = new Set(edgeRoutes.map((r) => r.handler));
    for (const handler of handlers) expect(stack.functions.get(handler), handler).toBeDefined();
    const redirectIntegrations = Object.values(resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route' && ['GET /{key}', 'HEAD /{key}'].includes(r.Properties.RouteKey),
    );
    expect(new Set(redirectIntegrations.map((r) => JSON.stringify(r.Properties.Target))).size).toBe(1);
  });
});
