import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const logicalId = (c: { node: { defaultChild?: unknown } }) =>
  Stack.of(stack).getLogicalId(c.node.defaultChild as never);

describe('the operator role for export-workspace and delete-workspace', () => {
  const roleId = logicalId(stack.workspaceDataAdmin.role);
  const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as any[])
    .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement) as Array<{ Action: string | string[]; Resource: unknown }>;
  const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

  it('is assumable within the account only', () => {
    const role = template.findResources('AWS::IAM::Role')[roleId] as any;
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain(':iam::111111111111:root');
  });

  it('may scan and batch-delete the table, query through Athena, and rewrite or delete lake objects under events/ and compacted/ only', () => {
    const tableId = logicalId(stack.table);
    const dynamo = statements.find((s) => JSON.stringify(s.Action).includes('dynamodb:BatchWriteItem'))!;
    expect(dynamo.Action).toEqual(
      expect.arrayContaining(['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:BatchWriteItem']),
    );
    expect(JSON.stringify(dynamo.Resource)).toContain(tableId);
    expect(actions).toEqual(expect.arrayContaining(['athena:StartQueryExecution', 'glue:GetTable', 's3:ListBucket']));
    const objects = statements.find((s) => JSON.stringify(s.Action).includes('s3:DeleteObject'))!;
    expect(objects.Action).toEqual(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    const resources = JSON.stringify(objects.Resource);
    expect(resources).toContain('/events/*');
    expect(resources).toContain('/compacted/*');
    expect(resources).not.toContain('/errors/*');
    expect(actions.filter((a) => a.endsWith(':*') || a === '*')).toEqual([]);
  });

  it('is not given to any route function', () => {
    for (const fn of stack.functions.values()) expect(fn.role).not.toBe(stack.workspaceDataAdmin.role);
  });

  it('the stack outputs what the commands need when deployed', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'TableName',
        'EventLakeBucketName',
        'AthenaWorkgroup',
        'AthenaDatabase',
        'WorkspaceDataAdminRoleArn',
      ]),
    );
  });

  it('outputs the buckets of the copies erasure reaches: both kept-failures buckets and the Athena results bucket', () => {
    const outputs = template.findOutputs('*') as Record<string, { Value: unknown }>;
    expect(outputs.CounterFailuresBucketName?.Value).toEqual({
      Ref: logicalId(stack.eventPipeline.counterFailures.bucket),
    });
    expect(outputs.PublishFailuresBucketName?.Value).toEqual({ Ref: logicalId(stack.outbound.publishFailures.bucket) });
    expect(outputs.AthenaResultsBucketName?.Value).toEqual({ Ref: logicalId(stack.analytics.resultsBucket) });
  });

  it('may record the tombstone (PutItem on ERASED# keys only) and rewrite kept failures and delete query results', () => {
    const puts = statements.filter((s) => [s.Action].flat().includes('dynamodb:PutItem'));
    expect(puts).toHaveLength(1);
    expect((puts[0] as { Condition?: unknown }).Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ERASED#*'] },
    });
    const deletable = JSON.stringify(statements.filter((s) => [s.Action].flat().includes('s3:DeleteObject')));
    for (const bucket of [stack.eventPipeline.counterFailures.bucket, stack.outbound.publishFailures.bucket])
      expect(deletable).toContain(logicalId(bucket));
    expect(deletable).toContain(`${logicalId(stack.analytics.resultsBucket)}","Arn"]},"/athena/*"`);
  });
});
