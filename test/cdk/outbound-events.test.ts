import { describe, expect, it } from 'vitest';
import { streamedItemSortKeys } from '@shared/db/keys';
import { outboundEnvNames } from '@shared/outbound/outbound-config';
import { deployedRetryDelaysMs, MAX_DELIVERY_ATTEMPTS } from '@shared/outbound/retry-schedule';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const idOf = (construct: { node: { defaultChild?: unknown } } | object) =>
  stack.getLogicalId(((construct as { node: { defaultChild?: unknown } }).node.defaultChild ?? construct) as never);
const outbound = stack.outbound;
const tableId = idOf(stack.table);
const busId = idOf(outbound.bus);
const queueId = idOf(outbound.queue);
const dlqId = idOf(outbound.deadLetterQueue);

const statementsOf = (fn: { role?: unknown }) => {
  const roleId = idOf(fn.role as never);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as any[]);
};
const actionsOf = (statements: any[]) => statements.flatMap((s) => [s.Action].flat() as string[]);
const mappingOf = (fnId: string) =>
  Object.values(resources).find(
    (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.FunctionName.Ref === fnId,
  )!.Properties;

describe('outbound events (CDK)', () => {
  it('creates a custom event bus named after the stack, with a 30-day archive', () => {
    expect(resources[busId].Type).toBe('AWS::Events::EventBus');
    expect(resources[busId].Properties.Name).toBe('TestStack-events');
    const archive = Object.values(resources).find((r) => r.Type === 'AWS::Events::Archive')!;
    expect(archive.Properties.SourceArn).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(archive.Properties.EventPattern).toEqual({ source: ['TestStack'] });
  });

  it('turns on the table stream (new and old images) and maps it to the publisher, filtered to outbound items, with partial batch failures and a failure queue', () => {
    expect(resources[tableId].Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const mapping = mappingOf(idOf(outbound.publisher));
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.BisectBatchOnFunctionError).toBe(true);
    // Kept whole (records included) in S3, given up well before the stream's 24 h retention.
    expect(mapping.DestinationConfig.OnFailure.Destination).toEqual({
      'Fn::GetAtt': [idOf(outbound.publishFailures.bucket), 'Arn'],
    });
    expect(resources[idOf(outbound.publishFailures.bucket)].Type).toBe('AWS::S3::Bucket');
    expect(mapping.MaximumRecordAgeInSeconds).toBe(20 * 3600);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { Keys: { sk: { S: [...streamedItemSortKeys] } } },
    });
  });

  it('the delivery queue has a dead-letter queue after the whole retry schedule (>= 24 h), and the DLQ alarms', () => {
    const queue = resources[queueId].Properties;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: MAX_DELIVERY_ATTEMPTS,
    });
    expect(deployedRetryDelaysMs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(Math.max(...deployedRetryDelaysMs) / 1000).toBeLessThanOrEqual(12 * 3600); // SQS's longest visibility timeout
    expect(queue.MessageRetentionPeriod).toBeGreaterThan(deployedRetryDelaysMs.reduce((a, b) => a + b, 0) / 1000);
    expect(queue.SqsManagedSseEnabled).toBe(true);
    const alarm = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        r.Properties.Dimensions?.some((d: any) => d.Value?.['Fn::GetAtt']?.[0] === dlqId),
    )!;
    expect(alarm.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });

  it('the delivery function consumes the queue with partial batch failures', () => {
    const mapping = mappingOf(idOf(outbound.delivery));
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.BatchSize).toBe(10);
    const fn = resources[idOf(outbound.delivery)].Properties;
    expect(resources[queueId].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(fn.Timeout * 6);
    expect(fn.Environment.Variables[outboundEnvNames.queueUrl]).toEqual({ Ref: queueId });
  });

  it("the delivery function may read only the table's webhook items (and only mark one disabled) and write its delivery markers; nothing else on the table", () => {
    const statements = statementsOf(outbound.delivery);
    const all = statements.filter((s) => JSON.stringify(s.Resource).includes(tableId));
    const isMarker = (s: (typeof all)[number]) =>
      JSON.stringify(s.Condition?.['ForAllValues:StringLike']) ===
      JSON.stringify({ 'dynamodb:LeadingKeys': ['WEBHOOKSENT#*'] });
    const markers = all.filter(isMarker);
    expect(markers).toHaveLength(1);
    expect(actionsOf(markers).sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(markers[0]!.Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const onTable = all.filter((s) => !isMarker(s));
    expect(actionsOf(onTable).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    for (const s of onTable) {
      expect(s.Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
      expect(s.Condition['ForAllValues:StringLike']).toEqual({ 'dynamodb:LeadingKeys': ['WEBHOOKS#*'] });
    }
    const update = onTable.find((s) => s.Action === 'dynamodb:UpdateItem')!;
    expect(update.Condition['ForAllValues:StringEquals']['dynamodb:Attributes']).toEqual([
      'pk',
      'sk',
      'enabled',
      'disabledAt',
      'disabledReason',
    ]);
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage']),
    );
    expect(actions.some((a) => a.startsWith('events:') || a === 'sqs:SendMessage')).toBe(false);
  });

  it('the publisher may read the stream, query webhook endpoints, write the event log, put on the bus and send to the queue', () => {
    const statements = statementsOf(outbound.publisher);
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'events:PutEvents',
        'sqs:SendMessage',
      ]),
    );
    const put = statements.find((s) => [s.Action].flat().includes('events:PutEvents'))!;
    expect(put.Resource).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    const query = statements.find((s) => s.Action === 'dynamodb:Query')!;
    expect(query.Condition['ForAllValues:StringLike']).toEqual({ 'dynamodb:LeadingKeys': ['WEBHOOKS#*'] });
    const write = statements.find((s) => [s.Action].flat().includes('dynamodb:BatchWriteItem'))!;
    expect(write.Condition['ForAllValues:StringLike']).toEqual({ 'dynamodb:LeadingKeys': ['EVENTLOG#*'] });
    expect(actions).not.toContain('dynamodb:Scan');
    const env = resources[idOf(outbound.publisher)].Properties.Environment.Variables;
    expect(env[outboundEnvNames.eventSource]).toBe('TestStack');
    expect(env[outboundEnvNames.busName]).toEqual({ Ref: busId });
  });

  it('stays inside the CloudFormation limits', () => {
    expect(Object.keys(resources).length).toBeLessThan(500);
    expect(JSON.stringify(template.toJSON()).length).toBeLessThan(1024 * 1024);
  });
});
