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
});
