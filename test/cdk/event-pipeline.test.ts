import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { execFileSync } from 'node:child_process';
import { COUNTER_BATCH_SIZE, eventErrorPrefix, eventPartitionQuery, eventStreamCapacity } from '@lib/event-pipeline';
import {
  activePartitionsFor,
  FIREHOSE_ACTIVE_PARTITION_LIMIT,
  LAKE_SHARDS,
  rawPartitionOf,
  rawPartitionPath,
  shardOf,
} from '@shared/analytics/lake/lake-layout';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const streamId = stack.getLogicalId(stack.eventPipeline.deliveryStream);
const kinesisId = stack.getLogicalId(stack.eventPipeline.eventStream.node.defaultChild as never);
const countersId = stack.getLogicalId(stack.eventPipeline.counters.node.defaultChild as never);
const bucketId = stack.getLogicalId(stack.eventLake.bucket.node.defaultChild as never);
const failuresId = stack.getLogicalId(stack.eventPipeline.counterFailures.bucket.node.defaultChild as never);
const stream = resources[streamId].Properties;
const destination = stream.ExtendedS3DestinationConfiguration;

const roleActions = (roleId: string) =>
  Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as any[]);

describe('event pipeline (Kinesis data stream -> Firehose -> event lake, and -> click counters)', () => {
  it('puts events on an encrypted Kinesis data stream (2 shards by default) that Firehose reads', () => {
    expect(resources[kinesisId].Type).toBe('AWS::Kinesis::Stream');
    expect(resources[kinesisId].Properties).toMatchObject({
      ShardCount: 2,
      StreamModeDetails: { StreamMode: 'PROVISIONED' },
      RetentionPeriodHours: 24,
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
    });
    expect(resources[streamId].Type).toBe('AWS::KinesisFirehose::DeliveryStream');
    expect(stream.DeliveryStreamType).toBe('KinesisStreamAsSource');
    expect(stream.KinesisStreamSourceConfiguration.KinesisStreamARN).toEqual({ 'Fn::GetAtt': [kinesisId, 'Arn'] });
    // A stream source takes no Firehose-side encryption setting (the data stream encrypts).
    expect(stream.DeliveryStreamEncryptionConfigurationInput).toBeUndefined();
    const roleId = stream.KinesisStreamSourceConfiguration.RoleARN['Fn::GetAtt'][0];
    const read = roleActions(roleId).filter((st) => [st.Action].flat().some((a: string) => a.startsWith('kinesis:')));
    expect(read).toEqual([
      {
        Effect: 'Allow',
        Action: ['kinesis:DescribeStream', 'kinesis:GetShardIterator', 'kinesis:GetRecords', 'kinesis:ListShards'],
        Resource: { 'Fn::GetAtt': [kinesisId, 'Arn'] },
      },
    ]);
  });

  it('sizes the stream from context: a shard count or on-demand; anything else fails the synth', () => {
    expect(eventStreamCapacity(undefined)).toEqual({ mode: 'provisioned', shards: 2 });
    expect(eventStreamCapacity('10')).toEqual({ mode: 'provisioned', shards: 10 });
    expect(eventStreamCapacity('on-demand')).toEqual({ mode: 'on-demand' });
    expect(() => eventStreamCapacity('0')).toThrow(/eventStreamShards/);
    expect(() => eventStreamCapacity('lots')).toThrow(/eventStreamShards/);
    const onDemand = synthStack({ eventStreamShards: 'on-demand' }).template.toJSON().Resources as Record<string, any>;
    const kinesis = Object.values(onDemand).find((r) => r.Type === 'AWS::Kinesis::Stream');
    expect(kinesis.Properties.StreamModeDetails).toEqual({ StreamMode: 'ON_DEMAND' });
    expect(kinesis.Properties.ShardCount).toBeUndefined();
  });

  it('feeds the click counter consumer: batches of up to 1,000, one batch per shard at a time, retried whole, failures to a queue that alarms', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: countersId },
      EventSourceArn: { 'Fn::GetAtt': [kinesisId, 'Arn'] },
      BatchSize: COUNTER_BATCH_SIZE,
      MaximumBatchingWindowInSeconds: 2,
      ParallelizationFactor: 1,
      StartingPosition: 'TRIM_HORIZON',
      // Given up well before the stream drops the records, and kept whole in S3 (not an SQS
      // queue, which would get only the shard and sequence range).
      MaximumRecordAgeInSeconds: 20 * 3600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [failuresId, 'Arn'] } },
      },
    });
    expect(resources[failuresId].Type).toBe('AWS::S3::Bucket');
    expect(resources[kinesisId].Properties.RetentionPeriodHours * 3600).toBeGreaterThanOrEqual(20 * 3600 + 4 * 3600);
    const roleId = stack.getLogicalId(stack.eventPipeline.counters.role.node.defaultChild as never);
    const table = roleActions(roleId).filter((st) => [st.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    // Link items, and the hot-set item it nominates hot links in: no other item of the table.
    // GetItem on link items and UpdateItem on those two (its row's Read and Write statements), nothing else.
    expect(table).toEqual([
      expect.objectContaining({
        Sid: 'Read',
        Action: 'dynamodb:GetItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LINK#*'] } },
      }),
      expect.objectContaining({
        Sid: 'Write',
        Action: 'dynamodb:UpdateItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LINK#*', 'EDGEHOT#*'] } },
      }),
    ]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Threshold: 60_000 });
    // The consumer keeps the links it could not count in the same bucket, and every write there alarms.
    expect(resources[countersId].Properties.Environment.Variables.STREAM_FAILURES_BUCKET).toEqual({ Ref: failuresId });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/S3',
      MetricName: 'PutRequests',
      Dimensions: Match.arrayWith([{ Name: 'BucketName', Value: { Ref: failuresId } }]),
    });
    expect(resources[failuresId].Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' }),
    ]);
  });

  it('delivers into the event lake bucket under the same partition path the local lake uses', () => {
    expect(resources[streamId].Type).toBe('AWS::KinesisFirehose::DeliveryStream');
    expect(destination.BucketARN).toEqual({ 'Fn::GetAtt': [bucketId, 'Arn'] });
    const expected =
      'events/shard=!{partitionKeyFromQuery:shard}/dt=!{partitionKeyFromQuery:dt}/hour=!{partitionKeyFromQuery:hour}/';
    expect(destination.Prefix).toBe(expected);
    expect(
      rawPartitionPath({
        shard: '!{partitionKeyFromQuery:shard}',
        dt: '!{partitionKeyFromQuery:dt}',
        hour: '!{partitionKeyFromQuery:hour}',
      }) + '/',
    ).toBe(expected);
    expect(destination.ErrorOutputPrefix).toBe(eventErrorPrefix);
    expect(destination.ErrorOutputPrefix.startsWith('errors/')).toBe(true);
    // Objects are gzip JSON lines and carry the extension the local lake's files have (Athena
    // tells compressed text by it).
    expect(destination.CompressionFormat).toBe('GZIP');
    expect(destination.FileExtension).toBe('.json.gz');
  });

  it('partitions dynamically by a hash shard of the workspace, date and hour taken from the record (JQ metadata extraction)', () => {
    expect(destination.DynamicPartitioningConfiguration).toMatchObject({ Enabled: true });
    expect(destination.ProcessingConfiguration).toEqual({
      Enabled: true,
      Processors: [
        {
          Type: 'MetadataExtraction',
          Parameters: [
            { ParameterName: 'MetadataExtractionQuery', ParameterValue: eventPartitionQuery },
            { ParameterName: 'JsonParsingEngine', ParameterValue: 'JQ-1.6' },
          ],
        },
      ],
    });
    expect(rawPartitionOf({ workspaceId: 'ws_1', timestamp: '2026-05-06T07:08:09.000Z' })).toEqual({
      shard: shardOf('ws_1'),
      dt: '2026-05-06',
      hour: '07',
    });
  });

  it('computes the same partition with jq as the local lake does (the deployed JQ query run by a real jq 1.6)', () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      workspaceId: `ws_${(i * 7919).toString(36)}${'x'.repeat(i % 23)}`,
      timestamp: `2026-05-${String((i % 28) + 1).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:08:09.000Z`,
    }));
    records.push({ workspaceId: 'wś_ünïcode_😀', timestamp: '2026-05-06T07:08:09.000Z' });
    const out = execFileSync('jq', ['-c', eventPartitionQuery], {
      input: records.map((r) => JSON.stringify(r)).join('\n'),
    })
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toEqual(records.map((r) => rawPartitionOf(r)));
    expect(new Set(out.map((p: { shard: string }) => p.shard)).size).toBe(LAKE_SHARDS);
  });

  it('keeps active partitions bounded: 10,000 workspaces sending in the same minute stay under the limit', () => {
    // The current hour and, around the hour or with Firehose's late delivery, the previous one; plus a replayed hour.
    expect(activePartitionsFor(10_000, 3)).toBe(LAKE_SHARDS * 3);
    expect(activePartitionsFor(10_000, 3)).toBeLessThanOrEqual(FIREHOSE_ACTIVE_PARTITION_LIMIT);
    expect(new Set(Array.from({ length: 10_000 }, (_, i) => shardOf(`ws_${i}`))).size).toBe(LAKE_SHARDS);
  });

  it('alarms on the partition limit and on any object under errors/, which expire after 30 days', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Firehose',
      MetricName: 'PartitionCountExceeded',
      Dimensions: [{ Name: 'DeliveryStreamName', Value: { Ref: streamId } }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/S3',
      MetricName: 'PutRequests',
      Dimensions: Match.arrayWith([{ Name: 'FilterId', Value: 'ErrorsPrefix' }]),
    });
    expect(resources[bucketId].Properties.MetricsConfigurations).toEqual([{ Id: 'ErrorsPrefix', Prefix: 'errors/' }]);
    expect(resources[bucketId].Properties.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Prefix: 'errors/', ExpirationInDays: 30, Status: 'Enabled' })]),
    );
  });

  it('buffers (64 MiB / 60 s), logs delivery errors, and the role may write to the bucket', () => {
    expect(destination.BufferingHints).toEqual({ SizeInMBs: 64, IntervalInSeconds: 60 });
    expect(destination.CloudWatchLoggingOptions).toMatchObject({ Enabled: true });
    const roleId = destination.RoleARN['Fn::GetAtt'][0];
    const actions = roleActions(roleId).flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining(['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetBucketLocation']),
    );
  });

  it('writes into a bucket that is encrypted, private, TLS-only and has a lifecycle rule', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Prefix: 'events/', ExpirationInDays: 400, Status: 'Enabled' })]),
      },
    });
    const bucketPolicy = Object.values(resources).find(
      (r) => r.Type === 'AWS::S3::BucketPolicy' && r.Properties.Bucket.Ref === bucketId,
    );
    expect(JSON.stringify(bucketPolicy.Properties.PolicyDocument)).toContain('aws:SecureTransport');
  });

  it('gives exactly the routes that send events kinesis:PutRecords on the event stream and EVENTS_STREAM_NAME, and no other route any Kinesis or Firehose access', () => {
    expect(routeTable.filter((r) => r.grants.events).map((r) => r.handler)).toEqual(
      expect.arrayContaining(['client-click', 'client-first-open', 'client-events']),
    );
    for (const route of routeTable) {
      const fn = stack.functions.get(route.handler)!;
      const fnProps = resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties;
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
      const streams = roleActions(roleId).filter((s) =>
        [s.Action].flat().some((a: string) => a.startsWith('firehose:') || a.startsWith('kinesis:')),
      );
      const env = fnProps.Environment?.Variables ?? {};
      // A function answering several rows (edge-links) sends events when any of them does.
      if (routeTable.some((r) => r.handler === route.handler && r.grants.events)) {
        expect(streams).toEqual([
          { Effect: 'Allow', Action: 'kinesis:PutRecords', Resource: { 'Fn::GetAtt': [kinesisId, 'Arn'] } },
        ]);
        expect(env.EVENTS_STREAM_NAME).toEqual({ Ref: kinesisId });
      } else {
        expect(streams).toEqual([]);
        expect(env.EVENTS_STREAM_NAME).toBeUndefined();
      }
    }
  });
});
