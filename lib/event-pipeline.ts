import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { LogGroup, LogStream, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { partitionPath } from '@shared/events/event-record';

/**
 * The S3 prefix Firehose writes to: the same text as `partitionPath()` of the lake, with the
 * partition values taken from the record itself by the JQ metadata extraction below.
 */
export const eventPartitionPrefix = `${partitionPath({
  workspace_id: '!{partitionKeyFromQuery:workspace_id}',
  dt: '!{partitionKeyFromQuery:dt}',
  hour: '!{partitionKeyFromQuery:hour}',
})}/`;

/** JQ 1.6 query: workspace, UTC date and hour from the event's own `workspaceId` and `timestamp`. */
export const eventPartitionQuery = '{workspace_id: .workspaceId, dt: .timestamp[0:10], hour: .timestamp[11:13]}';

export const eventErrorPrefix = 'errors/!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/';

export interface EventPipelineProps {
  bucket: IBucket;
}

/**
 * Events -> Kinesis Data Firehose -> the event lake bucket. Dynamic partitioning by workspace,
 * date and hour (from the record, so late events land in their own hour), records that cannot
 * be partitioned go under `errors/`, server-side encryption of the stream, delivery errors
 * logged to CloudWatch. Records are already newline-terminated JSON lines (no delimiter added,
 * no compression: the local lake has the same files).
 */
export class EventPipeline extends Construct {
  readonly stream: CfnDeliveryStream;

  constructor(scope: Construct, id: string, props: EventPipelineProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'DeliveryLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const logStream = new LogStream(this, 'S3DeliveryLogStream', { logGroup, removalPolicy: RemovalPolicy.DESTROY });

    const role = new Role(this, 'DeliveryRole', { assumedBy: new ServicePrincipal('firehose.amazonaws.com') });
    // Exactly the S3 actions Firehose documents for an S3 destination, on this bucket only.
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        resources: [props.bucket.bucketArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
        resources: [props.bucket.arnForObjects('*')],
      }),
    );
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(props.bucket.node.defaultChild as never)}.Arn>/*]`,
      reason: 'Firehose writes objects under dynamic partition prefixes (workspace, date, hour) that are not known in advance; the wildcard is limited to the event lake bucket.',
    });

    this.stream = new CfnDeliveryStream(this, 'Stream', {
      deliveryStreamType: 'DirectPut',
      deliveryStreamEncryptionConfigurationInput: { keyType: 'AWS_OWNED_CMK' },
      extendedS3DestinationConfiguration: {
        bucketArn: props.bucket.bucketArn,
        roleArn: role.roleArn,
        prefix: eventPartitionPrefix,
        errorOutputPrefix: eventErrorPrefix,
        // Dynamic partitioning needs at least 64 MiB; a minute bounds the delay to the lake.
        bufferingHints: { sizeInMBs: 64, intervalInSeconds: 60 },
        compressionFormat: 'UNCOMPRESSED',
        // The bucket's own default encryption (SSE-S3) applies to every object.
        encryptionConfiguration: { noEncryptionConfig: 'NoEncryption' },
        dynamicPartitioningConfiguration: { enabled: true, retryOptions: { durationInSeconds: 300 } },
        processingConfiguration: {
          enabled: true,
          processors: [
            {
              type: 'MetadataExtraction',
              parameters: [
                { parameterName: 'MetadataExtractionQuery', parameterValue: eventPartitionQuery },
                { parameterName: 'JsonParsingEngine', parameterValue: 'JQ-1.6' },
              ],
            },
          ],
        },
        cloudWatchLoggingOptions: { enabled: true, logGroupName: logGroup.logGroupName, logStreamName: logStream.logStreamName },
      },
    });
    // The role's policy must exist before Firehose validates the destination.
    this.stream.node.addDependency(role);
  }
}
