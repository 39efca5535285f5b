import { describe, expect, it } from 'vitest';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

/** What `npm run smoke -- --stack <name>` reads from describe-stacks (scripts/smoke.ts). */
describe('CDK: the stack outputs the smoke test reads', () => {
  it('has BaseUrl, TableName, EventLakeBucketName and DistributionId', () => {
    for (const name of ['BaseUrl', 'TableName', 'EventLakeBucketName', 'DistributionId'])
      expect(Object.keys(outputs)).toContain(name);
  });

  it('lists every edge function URL, so the smoke test can check that a request bypassing CloudFront is refused', () => {
    const urls = stack.frontDoor.functionUrls;
    expect(urls.length).toBeGreaterThan(0);
    const urlIds = urls.map((u) => stack.getLogicalId(u.node.defaultChild as never));
    expect(outputs.EdgeFunctionUrls?.Value).toEqual({
      'Fn::Join': [',', urlIds.map((id) => ({ 'Fn::GetAtt': [id, 'FunctionUrl'] }))],
    });
  });
});
