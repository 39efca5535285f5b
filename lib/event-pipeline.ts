import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { LogGroup, LogStream, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { ERRORS_PREFIX, RAW_FILE_EXTENSION, rawPartitionJq, rawPartitionPath } from '@shared/analytics/lake-layout';
import type { ServiceAlarms } from './service-alarms';

/**
 * The S3 prefix Firehose writes to: the same text as `rawPartitionPath()` of the lake, with the
 * partition values taken from the record itself by the JQ metadata extraction below.
 */
export const eventPartitionPrefix = `${rawPartitionPath({
  shard: '!{partitionKeyFromQuery:shard}',
  dt: '!{partitionKeyFromQuery:dt}',
  hour: '!{partitionKeyFromQuery:hour}',
})}/`;

/**
 * JQ 1.6 query: the workspace's shard (a hash of `workspaceId`, the same as shardOf()), UTC date
 * and hour from the event's own `timestamp`. Active partitions: LAKE_SHARDS x the hours in flight,
 * whatever the number of workspaces.
 */
export const eventPartitionQuery = rawPartitionJq();

export const eventErrorPrefix = `${ERRORS_PREFIX}!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/`;

export interface EventPipelineProps {
  bucket: IBucket;
}

/**
 * Events -> Kinesis Data Firehose -> the event lake bucket. Dynamic partitioning by a hash shard
 * of the workspace, date and hour (from the record, so late events land in their own hour;
 * lake-layout.ts), records that cannot be partitioned go under `errors/`, server-side encryption
 * of the stream, delivery errors logged to CloudWatch. Records are already newline-terminated
 * JSON lines (no delimiter added, no compression: raw objects live for hours before compaction,
 * and the local lake has the same `.json` files).
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
        // Objects named like the local lake's files, so a copy of the real lake reads the same.
        fileExtension: RAW_FILE_EXTENSION,
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

  /** Alarm when records overflow the active-partition limit (they land under errors/ instead of the lake). */
  watch(alarms: ServiceAlarms): void {
    alarms.alarmOn(
      'EventPartitionCountExceeded',
      new Metric({ namespace: 'AWS/Firehose', metricName: 'PartitionCountExceeded', dimensionsMap: { DeliveryStreamName: this.stream.ref }, statistic: 'Maximum', period: Duration.minutes(5) }),
      'Firehose exceeded its active-partition limit: records went to errors/activePartitionExceeded/ (replay them: docs/analytics.md)',
    );
  }
}
