import { describe, expect, it } from 'vitest';
import { App, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LinkServiceStack } from '@lib/link-service-stack';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();

describe('infrastructure hardening', () => {
  it('passes the cdk-nag AwsSolutions checks (every exception acknowledged with a reason in code)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new LinkServiceStack(app, 'NagStack', { env: { account: '111111111111', region: 'us-east-1' } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('passes them with the WAF off too (-c edgeWaf=false) and in any region then', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], edgeWaf: 'false' } });
    new LinkServiceStack(app, 'NagStackNoWaf', { env: { account: '111111111111', region: 'eu-west-1' } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('throttles the service HTTP API and writes access logs with retention', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage')) as any[];
    expect(stages).toHaveLength(1);
    for (const stage of stages) {
      expect(stage.Properties.StageName).toBe('$default');
      expect(stage.Properties.DefaultRouteSettings).toMatchObject({
        ThrottlingRateLimit: expect.any(Number),
        ThrottlingBurstLimit: expect.any(Number),
      });
      expect(stage.Properties.AccessLogSettings.DestinationArn).toBeDefined();
      expect(stage.Properties.AccessLogSettings.Format).toContain('$context.requestId');
      expect(stage.Properties.AccessLogSettings.Format).not.toMatch(/header|api-key/i);
    }
    for (const group of Object.values(template.findResources('AWS::Logs::LogGroup')) as any[]) {
      expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('keeps buckets private, encrypted and TLS-only', () => {
    const buckets = template.findResources('AWS::S3::Bucket') as Record<string, any>;
    expect(Object.keys(buckets).length).toBeGreaterThan(0);
    for (const [id, bucket] of Object.entries(buckets)) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(
        bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault
          .SSEAlgorithm,
      ).toBeDefined();
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('encrypts the table and gives functions no AWS managed policies', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { SSESpecification: { SSEEnabled: true } });
    for (const role of Object.values(template.findResources('AWS::IAM::Role')) as any[]) {
      expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
    }
  });

  it("alarms on every function's errors and on DynamoDB throttles, to an encrypted topic", () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as any[];
    for (const [name] of stack.functions) {
      expect(
        alarms.some(
          (a) =>
            a.Properties.MetricName === 'Errors' &&
            JSON.stringify(a.Properties.Dimensions).includes(
              name.replace(/(^|-)(\w)/g, (_: string, __: string, c: string) => c.toUpperCase()),
            ),
        ),
      ).toBe(true);
    }
    expect(alarms.some((a) => JSON.stringify(a.Properties.Metrics ?? []).includes('ThrottledRequests'))).toBe(true);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
  });
});
