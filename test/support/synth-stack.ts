import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LinkServiceStack } from '@lib/link-service-stack';

let cached: { stack: LinkServiceStack; template: Template } | undefined;

/** Synthesizes the stack once per test file, without bundling (asset contents are not under test). */
export const synthStack = () => {
  if (!cached) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new LinkServiceStack(app, 'TestStack', { env: { account: '111111111111', region: 'eu-west-1' } });
    cached = { stack, template: Template.fromStack(stack) };
  }
  return cached;
};
