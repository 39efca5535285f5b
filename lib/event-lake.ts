import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, StorageClass } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/**
 * The event lake: the S3 bucket Firehose writes events into (partitioned
 * `events/workspace_id=/dt=/hour=/`) and Athena reads. Encrypted, private, TLS only; events move
 * to infrequent access after 30 days and expire after 400 days (a year of history plus margin).
 */
export class EventLake extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket receives the server access logs of the event lake; logging it into itself would loop.',
    });
    this.bucket = new Bucket(this, 'Bucket', {
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'event-lake/',
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'events-tiering-and-expiry',
          prefix: 'events/',
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(30) }],
          expiration: Duration.days(400),
        },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
  }
}
