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
