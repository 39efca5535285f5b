import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { COMPACTED_PREFIX, ERRORS_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import type { ServiceAlarms } from './service-alarms';
import { BlockPublicAccess, Bucket, BucketEncryption, StorageClass } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Days a record Firehose could not deliver into the lake stays under errors/ for replay. */
export const ERRORS_RETENTION_DAYS = 30;

/** The S3 request-metrics filter counting writes under errors/ (alarmed: anything there is an event not in the lake). */
export const ERRORS_METRICS_FILTER = 'ErrorsPrefix';

/**
 * The event lake: the S3 bucket Firehose writes raw events into (`events/shard=/dt=/hour=/`),
 * compaction writes Parquet into (`compacted/workspace_id=/dt=/`) and Athena reads
 * (lake-layout.ts). Encrypted, private, TLS only; events move to infrequent access after 30 days
 * and expire after 400 days (a year of history plus margin); records Firehose could not deliver
 * (errors/) are counted by a request-metrics filter, alarmed on, and kept 30 days for replay.
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
      metrics: [{ id: ERRORS_METRICS_FILTER, prefix: ERRORS_PREFIX }],
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'events-tiering-and-expiry',
          prefix: RAW_PREFIX,
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(30) }],
          expiration: Duration.days(400),
        },
        {
          id: 'compacted-tiering-and-expiry',
          prefix: COMPACTED_PREFIX,
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(30) }],
          expiration: Duration.days(400),
        },
        { id: 'errors-expiry', prefix: ERRORS_PREFIX, expiration: Duration.days(ERRORS_RETENTION_DAYS) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
  }

  /** Alarm on any object written under errors/ (a record that is not in the lake until replayed). */
  watch(alarms: ServiceAlarms): void {
    alarms.alarmOn(
      'EventLakeErrorObjects',
      new Metric({
        namespace: 'AWS/S3',
        metricName: 'PutRequests',
        dimensionsMap: { BucketName: this.bucket.bucketName, FilterId: ERRORS_METRICS_FILTER },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      `Firehose wrote records under ${ERRORS_PREFIX} (not in analytics until replayed: docs/analytics.md)`,
    );
  }
}
