import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LinkServiceStack } from '@lib/link-service-stack';

const app = new App();
const stackName: unknown = app.node.tryGetContext('stackName');
new LinkServiceStack(app, typeof stackName === 'string' ? stackName : 'LinkService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// cdk-nag AwsSolutions checks: synth fails on any finding not acknowledged (with a reason) in code.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
