import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LinkServiceStack } from '@lib/link-service-stack';

const cached = new Map<string, { stack: LinkServiceStack; template: Template }>();

/**
 * Synthesizes the stack once per test file and context, without bundling (asset contents are
 * not under test). us-east-1: CloudFront's WAF web ACL and certificates live there.
 */
export const synthStack = (context: Record<string, string> = {}) => {
  const key = JSON.stringify(context);
  let hit = cached.get(key);
  if (!hit) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
    const stack = new LinkServiceStack(app, 'TestStack', { env: { account: '111111111111', region: 'us-east-1' } });
    hit = { stack, template: Template.fromStack(stack) };
    cached.set(key, hit);
  }
  return hit;
};

/**
 * The stack synthesized anew with this context (not cached), e.g. to see a bad context value
 * refused at synth. The stack id names the test, so two files' stacks never share a name.
 */
export const synthWith = (context: Record<string, unknown>, stackId = 'TestStack') => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new LinkServiceStack(app, stackId, { env: { account: '111111111111', region: 'us-east-1' } });
  return { stack, template: Template.fromStack(stack) };
};

/** One environment variable of each function in the synthesized template, by handler (undefined: not set). */
export const functionEnvironmentOf = (
  { stack, template }: { stack: LinkServiceStack; template: Template },
  name: string,
): Map<string, unknown> => {
  const resources = template.toJSON().Resources as Record<
    string,
    { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
  >;
  return new Map(
    [...stack.functions].map(([handler, fn]) => [
      handler,
      resources[stack.getLogicalId(fn.node.defaultChild as never)]?.Properties.Environment?.Variables?.[name],
    ]),
  );
};
