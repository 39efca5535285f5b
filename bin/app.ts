import { App } from 'aws-cdk-lib';
import { LinkServiceStack } from '@lib/link-service-stack';

const app = new App();
new LinkServiceStack(app, app.node.tryGetContext('stackName') ?? 'LinkService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
