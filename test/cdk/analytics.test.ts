import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { compactedDayPath, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { eventRecordSchema } from '@shared/events/event-record-schema';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

const statementsOf = (handler: string) => {
  const fn = stack.functions.get(handler)!;
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as any[]);
};
const actionsOf = (handler: string) => statementsOf(handler).flatMap((s) => [s.Action].flat() as string[]);

const analyticsRoutes = routeTable.filter((r) => r.grants.analytics);
const otherRoutes = routeTable.filter((r) => !r.grants.analytics);

describe('CDK: Athena over the event lake', () => {
  it('defines the raw Glue table from the event record schema, partitioned by shard, day and hour with projection', () => {
    const table = ofType('AWS::Glue::Table')
      .map(([, t]) => t)
      .find((t) => t.Properties.TableInput.Name === 'events')!;
    const input = table.Properties.TableInput;
    expect(input.StorageDescriptor.Columns).toEqual(
      Object.keys(eventRecordSchema.shape).map((n) => ({ Name: n.toLowerCase(), Type: 'string' })),
    );
    expect(input.PartitionKeys).toEqual([
      { Name: 'shard', Type: 'string' },
      { Name: 'dt', Type: 'string' },
      { Name: 'hour', Type: 'string' },
    ]);
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.shard.type': 'enum',
      'projection.shard.values': '00,01,02,03,04,05,06,07,08,09,10,11,12,13,14,15',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      'projection.hour.type': 'integer',
      'projection.hour.range': '0,23',
      'projection.hour.digits': '2',
    });
    // The location template is the lake bucket plus exactly the sink's partition path.
    const location = JSON.stringify(input.Parameters['storage.location.template']);
    expect(location).toContain(logicalIdOf(stack.eventLake.bucket));
    expect(location).toContain(`/${rawPartitionPath({ shard: '${shard}', dt: '${dt}', hour: '${hour}' })}/`);
  });

  it('defines the compacted Parquet table, one folder per workspace and day, with projection', () => {
    const table = ofType('AWS::Glue::Table')
      .map(([, t]) => t)
      .find((t) => t.Properties.TableInput.Name === 'events_compacted')!;
    const input = table.Properties.TableInput;
    expect(input.StorageDescriptor.Columns).toEqual(
      Object.keys(eventRecordSchema.shape).map((n) => ({ Name: n.toLowerCase(), Type: 'string' })),
    );
    expect(input.PartitionKeys).toEqual([
      { Name: 'workspace_id', Type: 'string' },
      { Name: 'dt', Type: 'string' },
    ]);
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe(
      'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    );
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.workspace_id.type': 'injected',
      'projection.dt.type': 'date',
    });
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      `/${compactedDayPath('${workspace_id}', '${dt}')}/`,
    );
  });

  it('has a workgroup with enforced settings, a bytes-scanned cutoff and encrypted results in a private TLS-only bucket', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: Match.anyValue(),
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: Match.objectLike({ EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } }),
      }),
    });
    const [, workgroup] = ofType('AWS::Athena::WorkGroup')[0]!;
    expect(workgroup.Properties.WorkGroupConfiguration.BytesScannedCutoffPerQuery).toBeGreaterThanOrEqual(
      10 * 1024 ** 2,
    );
    const resultsId = logicalIdOf(stack.analytics.resultsBucket);
    expect(resources[resultsId].Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: { Rules: expect.arrayContaining([expect.objectContaining({ ExpirationInDays: 7 })]) },
    });
    const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => p.Properties.Bucket.Ref === resultsId)!;
    expect(JSON.stringify(policy[1].Properties.PolicyDocument)).toContain('aws:SecureTransport');
  });

  it('gives analytics routes Athena, Glue and S3 access scoped to the workgroup, table and buckets, plus their env and timeout', () => {
    expect(analyticsRoutes.map((r) => r.handler).sort()).toEqual([
      'analytics-deep-link-app',
      'analytics-events',
      'analytics-link',
    ]);
    for (const route of analyticsRoutes) {
      const statements = statementsOf(route.handler);
      const athena = statements.find((s) => [s.Action].flat().includes('athena:StartQueryExecution'))!;
      expect([athena.Action].flat().sort()).toEqual([
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:StartQueryExecution',
        'athena:StopQueryExecution',
      ]);
      expect(JSON.stringify(athena.Resource)).toContain(':workgroup/TestStack-analytics');
      const glue = statements.find((s) => [s.Action].flat().includes('glue:GetTable'))!;
      expect([glue.Action].flat().sort()).toEqual(['glue:GetDatabase', 'glue:GetPartitions', 'glue:GetTable']);
      expect(JSON.stringify(glue.Resource)).toContain(':table/teststack_analytics/events"');
      expect(JSON.stringify(glue.Resource)).toContain(':table/teststack_analytics/events_compacted');
      expect(JSON.stringify(glue.Resource)).not.toContain('*');
      const lakeId = logicalIdOf(stack.eventLake.bucket);
      const lake = statements.filter((s) => JSON.stringify(s.Resource).includes(lakeId));
      expect(lake.flatMap((s) => [s.Action].flat())).toEqual(expect.arrayContaining(['s3:GetObject', 's3:ListBucket']));
      expect(
        lake.flatMap((s) => [s.Action].flat()).some((a: string) => a.startsWith('s3:Put') || a.startsWith('s3:Delete')),
      ).toBe(false);
      const resultsId = logicalIdOf(stack.analytics.resultsBucket);
      const results = statements.filter((s) => JSON.stringify(s.Resource).includes(resultsId));
      expect(results.flatMap((s) => [s.Action].flat())).toEqual(
        expect.arrayContaining([
          's3:GetObject',
          's3:PutObject',
          's3:AbortMultipartUpload',
          's3:ListBucketMultipartUploads',
          's3:ListMultipartUploadParts',
        ]),
      );
      expect([...lake, ...results].flatMap((s) => [s.Action].flat()).some((a: string) => a.includes('*'))).toBe(false);
      const fn = resources[logicalIdOf(stack.functions.get(route.handler)!)].Properties;
      expect(fn.Environment.Variables).toMatchObject({
        ATHENA_WORKGROUP: 'TestStack-analytics',
        ATHENA_DATABASE: 'teststack_analytics',
        // The compaction watermark is read from the lake bucket (raw partitions only past it).
        LAKE_BUCKET: { Ref: lakeId },
      });
      expect(fn.Timeout).toBe(29);
    }
  });

  it('gives every other route no analytics access and no Athena env', () => {
    for (const route of otherRoutes) {
      expect(actionsOf(route.handler).filter((a) => a.startsWith('athena:') || a.startsWith('glue:'))).toEqual([]);
      const env = resources[logicalIdOf(stack.functions.get(route.handler)!)].Properties.Environment?.Variables ?? {};
      expect(env.ATHENA_WORKGROUP).toBeUndefined();
      expect(env.LAKE_BUCKET).toBeUndefined();
    }
  });
});
