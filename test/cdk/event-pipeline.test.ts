import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { eventErrorPrefix, eventPartitionQuery } from '@lib/event-pipeline';
import { partitionOf, partitionPath } from '@shared/events/event-record';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const streamId = stack.getLogicalId(stack.eventPipeline.stream);
const bucketId = stack.getLogicalId(stack.eventLake.bucket.node.defaultChild as never);
const stream = resources[streamId].Properties;
const destination = stream.ExtendedS3DestinationConfiguration;

const roleActions = (roleId: string) =>
  Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as any[]);

describe('event pipeline (Firehose -> event lake)', () => {
  it('delivers into the event lake bucket under the same partition path the local lake uses', () => {
    expect(resources[streamId].Type).toBe('AWS::KinesisFirehose::DeliveryStream');
    expect(stream.DeliveryStreamType).toBe('DirectPut');
    expect(destination.BucketARN).toEqual({ 'Fn::GetAtt': [bucketId, 'Arn'] });
    const expected = 'events/workspace_id=!{partitionKeyFromQuery:workspace_id}/dt=!{partitionKeyFromQuery:dt}/hour=!{partitionKeyFromQuery:hour}/';
    expect(destination.Prefix).toBe(expected);
    expect(
      partitionPath({ workspace_id: '!{partitionKeyFromQuery:workspace_id}', dt: '!{partitionKeyFromQuery:dt}', hour: '!{partitionKeyFromQuery:hour}' }) + '/',
    ).toBe(expected);
    expect(destination.ErrorOutputPrefix).toBe(eventErrorPrefix);
    expect(destination.ErrorOutputPrefix.startsWith('errors/')).toBe(true);
  });

  it('partitions dynamically by workspace, date and hour taken from the record (JQ metadata extraction)', () => {
    expect(destination.DynamicPartitioningConfiguration).toMatchObject({ Enabled: true });
    expect(destination.ProcessingConfiguration).toEqual({
      Enabled: true,
      Processors: [
        {
          Type: 'MetadataExtraction',
          Parameters: [
            { ParameterName: 'MetadataExtractionQuery', ParameterValue: '{workspace_id: .workspaceId, dt: .timestamp[0:10], hour: .timestamp[11:13]}' },
            { ParameterName: 'JsonParsingEngine', ParameterValue: 'JQ-1.6' },
          ],
        },
      ],
    });
    // The JQ slices are the ones partitionOf() takes locally.
    expect(eventPartitionQuery).toContain('.timestamp[0:10]');
    expect(partitionOf({ workspaceId: 'ws_1', timestamp: '2026-05-06T07:08:09.000Z' })).toEqual({ workspace_id: 'ws_1', dt: '2026-05-06', hour: '07' });
  });

  it('buffers (64 MiB / 60 s), encrypts the stream, logs delivery errors, and the role may write to the bucket', () => {
    expect(destination.BufferingHints).toEqual({ SizeInMBs: 64, IntervalInSeconds: 60 });
    expect(stream.DeliveryStreamEncryptionConfigurationInput).toEqual({ KeyType: 'AWS_OWNED_CMK' });
    expect(destination.CloudWatchLoggingOptions).toMatchObject({ Enabled: true });
    const roleId = destination.RoleARN['Fn::GetAtt'][0];
    const actions = roleActions(roleId).flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetBucketLocation']));
  });

  it('writes into a bucket that is encrypted, private, TLS-only and has a lifecycle rule', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Prefix: 'events/', ExpirationInDays: 400, Status: 'Enabled' })]),
      },
    });
    const bucketPolicy = Object.values(resources).find((r) => r.Type === 'AWS::S3::BucketPolicy' && r.Properties.Bucket.Ref === bucketId);
    expect(JSON.stringify(bucketPolicy.Properties.PolicyDocument)).toContain('aws:SecureTransport');
  });

  it('gives exactly the routes that send events firehose:PutRecordBatch on this stream and EVENTS_STREAM_NAME, and no other route any Firehose access', () => {
    expect(routeTable.filter((r) => r.grants.events).map((r) => r.handler)).toEqual(
      expect.arrayContaining(['client-click', 'client-first-open', 'client-events']),
    );
    for (const route of routeTable) {
      const fn = stack.functions.get(route.handler)!;
      const fnProps = resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties;
      const roleId = stack.getLogicalId(fn.role!.node.defaultChild as never);
      const firehose = roleActions(roleId).filter((s) => [s.Action].flat().some((a: string) => a.startsWith('firehose:')));
      const env = fnProps.Environment?.Variables ?? {};
      // A function answering several rows (edge-links) sends events when any of them does.
      if (routeTable.some((r) => r.handler === route.handler && r.grants.events)) {
        expect(firehose).toEqual([{ Effect: 'Allow', Action: 'firehose:PutRecordBatch', Resource: { 'Fn::GetAtt': [streamId, 'Arn'] } }]);
        expect(env.EVENTS_STREAM_NAME).toEqual({ Ref: streamId });
      } else {
        expect(firehose).toEqual([]);
        expect(env.EVENTS_STREAM_NAME).toBeUndefined();
      }
    }
  });
});
