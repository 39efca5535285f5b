import { describe, expect, it } from 'vitest';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LinkServiceStack } from '@lib/link-service-stack';
import { hotLinkFunctionCode } from '@lib/front-door/hot-link-function-code';
import { viewerRequestCode } from '@lib/front-door/viewer-request-code';
import { EDGE_HOT_LINKS_ENV } from '@shared/edge/hot-links/hot-candidates';
import { HOT_LINKS_KVS_ARN_ENV } from '@shared/edge/hot-links/kvs-writer';
import { REALTIME_LOG_FIELDS } from '@shared/edge/hot-links/realtime-log';
import { synthStack, synthWith } from '@test/support/synth-stack';

interface Resource {
  Type: string;
  Properties: Record<string, any>;
}

const resourcesOf = (template: { toJSON(): unknown }) =>
  (template.toJSON() as { Resources: Record<string, Resource> }).Resources;

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

const off = synthStack();
const offResources = resourcesOf(off.template);
const on = synthWith({ edgeHotLinks: 'true' }, 'HotLinksStack');
const onResources = resourcesOf(on.template);

const distributionConfig = (resources: Record<string, Resource>) => {
  const [[, distribution] = []] = ofType(resources, 'AWS::CloudFront::Distribution');
  return distribution?.Properties.DistributionConfig as {
    DefaultCacheBehavior: { FunctionAssociations: { FunctionARN: unknown }[] };
    CacheBehaviors: { FunctionAssociations: { FunctionARN: unknown }[] }[];
  };
};

const functionIdWithCode = (resources: Record<string, Resource>, code: string) =>
  ofType(resources, 'AWS::CloudFront::Function').find(([, r]) => r.Properties.FunctionCode === code)?.[0];

describe('CDK: hot links at the edge (context edgeHotLinks)', () => {
  it('is off by default: no store, no hot-link function, no writer; the link paths run the plain function', () => {
    expect(ofType(offResources, 'AWS::CloudFront::KeyValueStore')).toEqual([]);
    expect(functionIdWithCode(offResources, hotLinkFunctionCode())).toBeUndefined();
    expect(off.stack.edgeHotLinks).toBeUndefined();
    const plainId = functionIdWithCode(offResources, viewerRequestCode());
    expect(plainId).toBeDefined();
    expect(distributionConfig(offResources).DefaultCacheBehavior.FunctionAssociations).toEqual([
      expect.objectContaining({ FunctionARN: { 'Fn::GetAtt': [plainId, 'FunctionARN'] } }),
    ]);
  });

  it('on, adds a KeyValueStore and the hot-link function (cloudfront-js-2.0) associated with it', () => {
    const stores = ofType(onResources, 'AWS::CloudFront::KeyValueStore');
    expect(stores).toHaveLength(1);
    const [storeId] = stores[0]!;
    const fnId = functionIdWithCode(onResources, hotLinkFunctionCode());
    expect(fnId).toBeDefined();
    const fn = onResources[fnId!]!;
    expect(fn.Properties.AutoPublish).toBe(true);
    expect(fn.Properties.FunctionConfig).toMatchObject({
      Runtime: 'cloudfront-js-2.0',
      KeyValueStoreAssociations: [{ KeyValueStoreARN: { 'Fn::GetAtt': [storeId, 'Arn'] } }],
    });
  });

  it('on, runs the hot-link function on the link paths only; the other paths keep the plain function', () => {
    const config = distributionConfig(onResources);
    const hotId = functionIdWithCode(onResources, hotLinkFunctionCode());
    const plainId = functionIdWithCode(onResources, viewerRequestCode());
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      expect.objectContaining({ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [hotId, 'FunctionARN'] } }),
    ]);
    expect(config.CacheBehaviors.length).toBeGreaterThan(0);
    for (const behavior of config.CacheBehaviors) {
      expect(behavior.FunctionAssociations).toEqual([
        expect.objectContaining({ FunctionARN: { 'Fn::GetAtt': [plainId, 'FunctionARN'] } }),
      ]);
    }
  });

  it('on, schedules the writer every minute, allowed to describe, list and update that store only', () => {
    const writer = on.stack.edgeHotLinks;
    expect(writer).toBeDefined();
    const [[storeId] = []] = ofType(onResources, 'AWS::CloudFront::KeyValueStore');
    const fnId = on.stack.getLogicalId(writer!.fn.node.defaultChild as never);
    expect(onResources[fnId]?.Properties.Environment.Variables[HOT_LINKS_KVS_ARN_ENV]).toEqual({
      'Fn::GetAtt': [storeId, 'Arn'],
    });
    const kvsStatements = ofType(onResources, 'AWS::IAM::Policy').flatMap(([, p]) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).filter((s) =>
        [s.Action].flat().some((a) => a.startsWith('cloudfront-keyvaluestore:')),
      ),
    );
    expect(kvsStatements).toEqual([
      expect.objectContaining({
        Action: [
          'cloudfront-keyvaluestore:DescribeKeyValueStore',
          'cloudfront-keyvaluestore:ListKeys',
          'cloudfront-keyvaluestore:UpdateKeys',
        ],
        Resource: { 'Fn::GetAtt': [storeId, 'Arn'] },
      }),
    ]);
    const schedules = ofType(onResources, 'AWS::Scheduler::Schedule').filter(([, s]) =>
      JSON.stringify(s.Properties.Target.Arn).includes(fnId),
    );
    expect(schedules).toHaveLength(1);
    expect(schedules[0]![1].Properties.ScheduleExpression).toBe('rate(1 minute)');
  });

  it('on, grants the writer reads of link items, host records and the hot-set item, and writes of that item and its served records only', () => {
    const writer = on.stack.edgeHotLinks!;
    const roleId = on.stack.getLogicalId(writer.fn.role.node.defaultChild as never);
    const tableStatements = ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
      .filter((statement) => [statement.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    // The table stream's reads (its event source mapping) carry no item condition; no item action is among them.
    const items = tableStatements.filter((s) => s.Condition !== undefined);
    const streamActions = [
      'dynamodb:ListStreams',
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
    ];
    for (const statement of tableStatements.filter((s) => s.Condition === undefined))
      for (const action of [statement.Action].flat() as string[]) expect(streamActions).toContain(action);
    const pairs = items
      .flatMap((s) =>
        [s.Action]
          .flat()
          .flatMap((a: string) =>
            (s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'] as string[]).map((k) => `${a} ${k}`),
          ),
      )
      .sort();
    expect(pairs).toEqual([
      'dynamodb:BatchGetItem EDGEHOT#*',
      'dynamodb:BatchGetItem HOST#*',
      'dynamodb:BatchGetItem LINK#*',
      'dynamodb:BatchWriteItem EDGEHOT#*',
      'dynamodb:BatchWriteItem HOTSERVED#*',
      'dynamodb:GetItem EDGEHOT#*',
      'dynamodb:GetItem HOST#*',
      'dynamodb:GetItem LINK#*',
      'dynamodb:UpdateItem EDGEHOT#*',
      'dynamodb:UpdateItem HOTSERVED#*',
    ]);
  });

  it('on, the one writer runs one invocation at a time and reads the LINK changes of the table stream', () => {
    const writer = on.stack.edgeHotLinks!;
    const fnId = on.stack.getLogicalId(writer.fn.node.defaultChild as never);
    expect(onResources[fnId]?.Properties.ReservedConcurrentExecutions).toBe(1);
    const mappings = ofType(onResources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(fnId),
    );
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0]![1].Properties;
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
    expect(mapping.StartingPosition).toBe('LATEST');
    expect(mapping.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['MODIFY', 'REMOVE'], dynamodb: { Keys: { sk: { S: ['LINK'] } } } },
    ]);
    // Off, no mapping reads the stream for it and the counter consumer has no flag; on adds two
    // mappings: this one on the table's stream and the click-log consumer's on its log stream.
    expect(ofType(offResources, 'AWS::Lambda::EventSourceMapping').length).toBe(
      ofType(onResources, 'AWS::Lambda::EventSourceMapping').length - 2,
    );
  });

  it('on, the click counter consumer nominates hot links: only its flag differs (its hot-set grant is in its function spec)', () => {
    const counters = on.stack.eventPipeline.counters;
    const fnId = on.stack.getLogicalId(counters.node.defaultChild as never);
    expect(onResources[fnId]?.Properties.Environment.Variables[EDGE_HOT_LINKS_ENV]).toBe('true');
    const offId = off.stack.getLogicalId(off.stack.eventPipeline.counters.node.defaultChild as never);
    expect(offResources[offId]?.Properties.Environment.Variables[EDGE_HOT_LINKS_ENV]).toBeUndefined();
    // The role's policy is the same on and off: what it may do comes from the one grants function.
    const policiesOf = (resources: typeof onResources, stack: typeof on.stack) => {
      const roleId = stack.getLogicalId(stack.eventPipeline.counters.role.node.defaultChild as never);
      return ofType(resources, 'AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
        .map(([, p]) => JSON.stringify(p.Properties.PolicyDocument));
    };
    expect(policiesOf(onResources, on.stack)).toEqual(policiesOf(offResources, off.stack));
  });

  /** The table statements of a function's role. */
  const tableStatementsOf = (role: { node: { defaultChild?: unknown } }) => {
    const roleId = on.stack.getLogicalId(role.node.defaultChild as never);
    return ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
      .filter((statement) => [statement.Action].flat().some((a: string) => a.startsWith('dynamodb:')))
      .map((statement) => ({
        actions: [statement.Action].flat().sort(),
        prefixes: (statement.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'] as string[]).sort(),
      }));
  };

  it('off, has no click-log stream, log configuration or consumer', () => {
    expect(off.stack.edgeClickLogs).toBeUndefined();
    expect(Object.keys(off.template.findOutputs('EdgeClickLogFailuresBucketName'))).toEqual([]);
    expect(ofType(offResources, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('EdgeClickLog'))).toEqual([]);
    expect(ofType(offResources, 'AWS::CloudFront::RealtimeLogConfig')).toEqual([]);
    expect(distributionConfig(offResources).DefaultCacheBehavior).not.toHaveProperty('RealtimeLogConfigArn');
  });

  it('on, logs the link paths in real time (every request, the one field list) to a stream sized as the event stream', () => {
    const logs = on.stack.edgeClickLogs!;
    const [[configId, config] = []] = ofType(onResources, 'AWS::CloudFront::RealtimeLogConfig');
    expect(config?.Properties).toMatchObject({
      SamplingRate: 100,
      Fields: [...REALTIME_LOG_FIELDS],
      EndPoints: [
        {
          StreamType: 'Kinesis',
          KinesisStreamConfig: {
            RoleArn: { 'Fn::GetAtt': [on.stack.getLogicalId(logs.role.node.defaultChild as never), 'Arn'] },
            StreamArn: { 'Fn::GetAtt': [on.stack.getLogicalId(logs.stream.node.defaultChild as never), 'Arn'] },
          },
        },
      ],
    });
    const config2 = distributionConfig(onResources) as unknown as {
      DefaultCacheBehavior: Record<string, unknown>;
      CacheBehaviors: Record<string, unknown>[];
    };
    expect(config2.DefaultCacheBehavior.RealtimeLogConfigArn).toEqual({ 'Fn::GetAtt': [configId, 'Arn'] });
    for (const behavior of config2.CacheBehaviors) expect(behavior).not.toHaveProperty('RealtimeLogConfigArn');
    const stream = onResources[on.stack.getLogicalId(logs.stream.node.defaultChild as never)]!;
    expect(stream.Properties).toMatchObject({
      ShardCount: 2,
      StreamModeDetails: { StreamMode: 'PROVISIONED' },
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
    });
  });

  it('on, the log stream follows edgeClickLogShards, else eventStreamShards; a bad value fails the synth', () => {
    const logStreams = (context: Record<string, unknown>) =>
      ofType(
        synthWith({ edgeHotLinks: true, ...context }, 'HotLinksShardsStack').template.toJSON().Resources as Record<
          string,
          Resource
        >,
        'AWS::Kinesis::Stream',
      ).map(([, r]) => r.Properties.StreamModeDetails);
    expect(logStreams({ eventStreamShards: 'on-demand' })).toEqual([
      { StreamMode: 'ON_DEMAND' },
      { StreamMode: 'ON_DEMAND' },
    ]);
    expect(logStreams({ edgeClickLogShards: 'on-demand' })).toEqual(
      expect.arrayContaining([{ StreamMode: 'ON_DEMAND' }, { StreamMode: 'PROVISIONED' }]),
    );
    expect(() => logStreams({ edgeClickLogShards: 'lots' })).toThrow(/edgeClickLogShards must be a shard count/);
  });

  it('on, lets CloudFront only describe and put records on that stream, as that account', () => {
    const logs = on.stack.edgeClickLogs!;
    const roleId = on.stack.getLogicalId(logs.role.node.defaultChild as never);
    const streamId = on.stack.getLogicalId(logs.stream.node.defaultChild as never);
    const role = onResources[roleId]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Action: 'sts:AssumeRole',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': expect.anything() } },
      }),
    ]);
    const statements = ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[]);
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['kinesis:DescribeStreamSummary', 'kinesis:DescribeStream', 'kinesis:PutRecord', 'kinesis:PutRecords'],
        Resource: { 'Fn::GetAtt': [streamId, 'Arn'] },
      },
    ]);
  });

  it('on, runs the click-log consumer from that stream (batch item failures) with reads only and event puts', () => {
    const logs = on.stack.edgeClickLogs!;
    const fnId = on.stack.getLogicalId(logs.fn.node.defaultChild as never);
    const streamId = on.stack.getLogicalId(logs.stream.node.defaultChild as never);
    const mappings = ofType(onResources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(fnId),
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [streamId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      StartingPosition: 'TRIM_HORIZON',
    });
    expect(tableStatementsOf(logs.fn.role)).toEqual([
      {
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        prefixes: ['HOTSERVED#*', 'LINK#*', 'SECRET*', 'SLUG#*'],
      },
    ]);
    const roleId = on.stack.getLogicalId(logs.fn.role.node.defaultChild as never);
    const puts = ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
      .filter((s) => [s.Action].flat().some((a: string) => a.startsWith('kinesis:Put')));
    expect(puts).toHaveLength(1);
    expect(JSON.stringify(puts[0]!.Resource)).not.toContain(streamId);
  });

  it('on, keeps a batch the consumer gives up on (20 h, as the click counters) whole in its own failures bucket', () => {
    const logs = on.stack.edgeClickLogs!;
    const fnId = on.stack.getLogicalId(logs.fn.node.defaultChild as never);
    const bucketId = on.stack.getLogicalId(logs.failures.bucket.node.defaultChild as never);
    const [[, mapping] = []] = ofType(onResources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(fnId),
    );
    expect(mapping?.Properties).toMatchObject({
      MaximumRecordAgeInSeconds: 20 * 3600,
      MaximumRetryAttempts: 10_000,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
    });
    // The consumer's role may put objects there (and list the bucket), as Lambda documents; not read them.
    const roleId = on.stack.getLogicalId(logs.fn.role.node.defaultChild as never);
    const s3 = ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
      .filter((st) => [st.Action].flat().some((a: string) => a.startsWith('s3:')));
    expect(s3.map((st) => [st.Action].flat()).sort()).toEqual([['s3:ListBucket'], ['s3:PutObject']]);
    for (const st of s3) expect(JSON.stringify(st.Resource)).toContain(bucketId);
    expect(onResources[bucketId]!.Properties).toMatchObject({
      LifecycleConfiguration: { Rules: [expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' })] },
      MetricsConfigurations: [{ Id: 'AllObjects' }],
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true },
    });
    expect(on.template.findOutputs('EdgeClickLogFailuresBucketName')).toEqual({
      EdgeClickLogFailuresBucketName: expect.objectContaining({
        Value: { Ref: bucketId },
        Description: expect.stringContaining('admin replay-stream-failures'),
      }),
    });
  });

  it('on, alarms on any kept click-log batch, and lets the erasure role rewrite that bucket', () => {
    const logs = on.stack.edgeClickLogs!;
    const bucketId = on.stack.getLogicalId(logs.failures.bucket.node.defaultChild as never);
    const alarms = ofType(onResources, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('EdgeClickLogFailures'));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: 'AWS/S3',
      MetricName: 'PutRequests',
      Dimensions: expect.arrayContaining([
        { Name: 'BucketName', Value: { Ref: bucketId } },
        { Name: 'FilterId', Value: 'AllObjects' },
      ]),
    });
    expect(alarms[0]![1].Properties.AlarmActions).toHaveLength(1);
    const adminRoleId = on.stack.getLogicalId(on.stack.workspaceDataAdmin.role.node.defaultChild as never);
    const adminStatements = ofType(onResources, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === adminRoleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[]);
    const on_ = (action: string) =>
      JSON.stringify(adminStatements.filter((st) => [st.Action].flat().includes(action)).map((st) => st.Resource));
    for (const action of ['s3:ListBucket', 's3:GetObject', 's3:PutObject', 's3:DeleteObject'])
      expect(on_(action)).toContain(bucketId);
    // The statement that lists the failures buckets (and the query results bucket): one more bucket than off.
    const failuresListed = (stack: typeof on.stack, resources: Record<string, Resource>) => {
      const roleId = stack.getLogicalId(stack.workspaceDataAdmin.role.node.defaultChild as never);
      const counterId = stack.getLogicalId(stack.eventPipeline.counterFailures.bucket.node.defaultChild as never);
      return ofType(resources, 'AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
        .filter((st) => [st.Action].flat().includes('s3:ListBucket') && JSON.stringify(st.Resource).includes(counterId))
        .flatMap((st) => [st.Resource].flat());
    };
    expect(failuresListed(off.stack, offResources)).toHaveLength(3);
    expect(failuresListed(on.stack, onResources)).toHaveLength(4);
  });

  it('on, alarms when the log stream throttles CloudFront (records it refuses are dropped)', () => {
    const logs = on.stack.edgeClickLogs!;
    const streamId = on.stack.getLogicalId(logs.stream.node.defaultChild as never);
    const alarms = ofType(onResources, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('EdgeClickLogThrottles'));
    expect(alarms).toHaveLength(1);
    const metrics = JSON.stringify(alarms[0]![1].Properties.Metrics);
    expect(metrics).toContain('PutRecords.ThrottledRecords');
    expect(metrics).toContain('WriteProvisionedThroughputExceeded');
    expect(metrics).toContain(streamId);
    expect(alarms[0]![1].Properties.AlarmActions).toHaveLength(1);
  });

  it('on, only adds resources (every resource of the stack without it is kept), few, under the split point (450)', () => {
    // Event source mappings' logical ids carry the stack's name (and a hash of it), which differs
    // between the two synths.
    const normal = (id: string) => id.replace(/(?:TestStack|HotLinksStack)\w*$/, '<stack>');
    const offIds = new Set(Object.keys(offResources).map(normal));
    const onIds = new Set(Object.keys(onResources).map(normal));
    const added = [...onIds].filter((id) => !offIds.has(id));
    expect([...offIds].filter((id) => !onIds.has(id))).toEqual([]);
    // The store and function, the writer and its schedule (10), the click-log stream, CloudFront's
    // role, the log configuration, the consumer and its mapping, three alarms (13), the consumer's
    // failures bucket, its policy and its alarm (3).
    expect(added.length).toBeLessThanOrEqual(27);
    // Under the point where the stack's split plan starts (450), far under CloudFormation's 500.
    expect(Object.keys(onResources).length).toBeLessThan(450);
  });

  it('on, passes the cdk-nag AwsSolutions checks (every exception acknowledged with a reason in code)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], edgeHotLinks: 'true' } });
    new LinkServiceStack(app, 'NagHotLinks', { env: { account: '111111111111', region: 'us-east-1' } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('refuses a context value other than true or false', () => {
    expect(() => synthWith({ edgeHotLinks: 'yes' }, 'BadHotLinks')).toThrow(/edgeHotLinks must be true or false/);
  });
});
