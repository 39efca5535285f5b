import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { synthWith } from '@test/support/synth-stack';

/** The context `cdk deploy` reads from cdk.json (the tests' default stack is synthesized without it). */
const cdkJsonContext = (
  JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

describe('CDK: the stack cdk.json deploys', () => {
  it('has hot links at the edge on: the store, the writer, the real-time log configuration and its consumer', () => {
    expect(cdkJsonContext.edgeHotLinks).toBe(true);
    const { stack, template } = synthWith(cdkJsonContext, 'CdkJsonStack');
    expect(stack.edgeHotLinks).toBeDefined();
    expect(stack.edgeClickLogs).toBeDefined();
    template.resourceCountIs('AWS::CloudFront::KeyValueStore', 1);
    template.resourceCountIs('AWS::CloudFront::RealtimeLogConfig', 1);
    // Under the 450 resources where the stack's split plan starts.
    expect(Object.keys(template.toJSON().Resources as object).length).toBeLessThan(450);
  });
});
