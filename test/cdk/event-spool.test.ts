import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { routeTable } from '@shared/routes/route-table';
import { SPOOL_MAX_RECEIVES } from '@lib/event-spool';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const ref = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('event spool after cdk deploy', () => {
  it('is an encrypted, TLS-only SQS queue with a dead-letter queue, drained by the redrive Lambda with partial batch failures', () => {
    const queueId = ref(stack.eventSpool.queue);
    const dlqId = ref(stack.eventSpool.deadLetterQueue);
    const queues = template.findResources('AWS::SQS::Queue');
    expect(queues[queueId]!.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
      VisibilityTimeout: 300,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: SPOOL_MAX_RECEIVES },
    });
    expect(queues[dlqId]!.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: ref(stack.eventSpool.redrive) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('lets every event-sending function spool (SendMessage on the queue, its URL in the environment), and no other', () => {
    const queueArn = { 'Fn::GetAtt': [ref(stack.eventSpool.queue), 'Arn'] };
    for (const route of routeTable) {
      const fn = stack.functions.get(route.handler)!;
      const env = (template.findResources('AWS::Lambda::Function')[ref(fn)]!.Properties.Environment?.Variables ??
        {}) as Record<string, unknown>;
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
      const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
        .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement);
      const sends = statements.filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
      // One function per handler (edge-links answers several rows): it sends events when any of its rows does.
      if (routeTable.some((r) => r.handler === route.handler && r.grants.events)) {
        expect(env.EVENTS_SPOOL_QUEUE_URL, route.handler).toEqual({ Ref: ref(stack.eventSpool.queue) });
        expect(
          sends.map((s) => s.Resource),
          route.handler,
        ).toEqual([queueArn]);
      } else {
        expect(env.EVENTS_SPOOL_QUEUE_URL, route.handler).toBeUndefined();
        expect(sends, route.handler).toEqual([]);
      }
    }
  });

  it('lets the redrive read the tombstones of erased workspaces and nothing else of the table', () => {
    const fn = stack.eventSpool.redrive;
    const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
      .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const dynamo = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': [ref(stack.table), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ERASED#*'] } },
      }),
    ]);
    const env = template.findResources('AWS::Lambda::Function')[ref(fn)]!.Properties.Environment.Variables;
    expect(env.TABLE_NAME).toEqual({ Ref: ref(stack.table) });
  });

  it('alarms when a spooled event waits more than 15 minutes, and on anything in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Threshold: 900,
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ref(stack.eventSpool.queue), 'QueueName'] } }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [ref(stack.eventSpool.deadLetterQueue), 'QueueName'] } },
      ],
    });
  });
});
