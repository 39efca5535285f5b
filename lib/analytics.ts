import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ANALYTICS_TABLE, COMPACTED_TABLE, DAILY_TABLE } from '@shared/analytics/query/analytics-sql';
import { ATHENA_BYTES_SCANNED_CUTOFF } from '@shared/analytics/lake/compaction-units';
import {
  COMPACTED_PREFIX,
  compactedPartitionKeys,
  DAILY_PREFIX,
  dailyPartitionKeys,
  LAKE_SHARDS,
  RAW_PREFIX,
  rawPartitionKeys,
} from '@shared/analytics/lake/lake-layout';
import { eventRecordSchema } from '@shared/events/event-record-schema';

export interface AnalyticsProps {
  /** Where the results bucket's server access logs go. */
  accessLogsBucket: IBucket;
  /** The event lake: raw `events/shard=/dt=/hour=/`, compacted `compacted/workspace_id=/dt=/` (lake-layout.ts). */
  lakeBucket: IBucket;
  /** Athena refuses (and bills no more than) queries scanning more than this. Default 10 GiB. */
  bytesScannedCutoffPerQuery?: number;
}

/** The shard values of the raw table's projection: 00 .. LAKE_SHARDS-1, two digits. */
export const shardValues = () => Array.from({ length: LAKE_SHARDS }, (_, i) => String(i).padStart(2, '0'));

/**
 * Glue columns straight from the event line schema (every field is text in the JSON lines),
 * lower-cased as Athena wants; the OpenX JSON SerDe matches them to the camelCase keys.
 */
export const eventTableColumns = () =>
  Object.keys(eventRecordSchema.shape).map((name) => ({ name: name.toLowerCase(), type: 'string' }));

/**
 * Athena over the event lake: a Glue database and two tables, `events` (raw JSON lines, JSON
 * SerDe) and `events_compacted` (Parquet), both with partition projection, so no crawler and no
 * partition maintenance; an Athena workgroup (engine v3, enforced settings,
 * bytes-scanned cutoff, encrypted results) and its results bucket. `grantQuery` gives a function
 * exactly what running analytics queries needs.
 */
export class Analytics extends Construct {
  readonly databaseName: string;
  readonly tableName = ANALYTICS_TABLE;
  readonly compactedTableName = COMPACTED_TABLE;
  readonly dailyTableName = DAILY_TABLE;
  readonly workgroupName: string;
  readonly resultsBucket: Bucket;
  readonly lakeBucket: IBucket;

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.lakeBucket = props.lakeBucket;
    this.databaseName = `${stack.stackName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_analytics`;
    this.workgroupName = `${stack.stackName}-analytics`;

    this.resultsBucket = new Bucket(this, 'ResultsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'analytics-results/',
      lifecycleRules: [
        { id: 'expire-query-results', expiration: Duration.days(7) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    const database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: this.databaseName, description: 'Link service event lake' },
    });

    const lakeRoot = `s3://${props.lakeBucket.bucketName}/${RAW_PREFIX}`;
    const table = new CfnTable(this, 'EventsTable', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: this.tableName,
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: rawPartitionKeys.map((name) => ({ name, type: 'string' })),
        parameters: {
          classification: 'json',
          'projection.enabled': 'true',
          // A hash of the workspace id (lake-layout.ts shardOf); every query names its workspace's shard.
          'projection.shard.type': 'enum',
          'projection.shard.values': shardValues().join(','),
          'projection.dt.type': 'date',
          'projection.dt.format': 'yyyy-MM-dd',
          'projection.dt.range': '2024-01-01,NOW',
          'projection.dt.interval': '1',
          'projection.dt.interval.unit': 'DAYS',
          'projection.hour.type': 'integer',
          'projection.hour.range': '0,23',
          'projection.hour.digits': '2',
          'storage.location.template': `${lakeRoot}shard=\${shard}/dt=\${dt}/hour=\${hour}/`,
        },
        storageDescriptor: {
          location: lakeRoot,
          columns: eventTableColumns(),
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          serdeInfo: {
            serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe',
            parameters: { 'ignore.malformed.json': 'true', 'case.insensitive': 'true' },
          },
        },
      },
    });
    table.addResourceDependency(database);

    const compactedRoot = `s3://${props.lakeBucket.bucketName}/${COMPACTED_PREFIX}`;
    const compacted = new CfnTable(this, 'CompactedEventsTable', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: this.compactedTableName,
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: compactedPartitionKeys.map((name) => ({ name, type: 'string' })),
        parameters: {
          classification: 'parquet',
          'projection.enabled': 'true',
          // Injected: any workspace id works, and every query must name one (ours always do).
          'projection.workspace_id.type': 'injected',
          'projection.dt.type': 'date',
          'projection.dt.format': 'yyyy-MM-dd',
          'projection.dt.range': '2024-01-01,NOW',
          'projection.dt.interval': '1',
          'projection.dt.interval.unit': 'DAYS',
          'storage.location.template': `${compactedRoot}workspace_id=\${workspace_id}/dt=\${dt}/`,
        },
        storageDescriptor: {
          location: compactedRoot,
          columns: eventTableColumns(),
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    compacted.addResourceDependency(database);

    // Merged days (daily-merge.ts): one file per workspace-day, a partition per workspace and month,
    // so a 90-day view lists 4 partitions, not 90.
    const dailyRoot = `s3://${props.lakeBucket.bucketName}/${DAILY_PREFIX}`;
    const daily = new CfnTable(this, 'DailyEventsTable', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: this.dailyTableName,
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: dailyPartitionKeys.map((name) => ({ name, type: 'string' })),
        parameters: {
          classification: 'parquet',
          'projection.enabled': 'true',
          'projection.workspace_id.type': 'injected',
          'projection.month.type': 'date',
          'projection.month.format': 'yyyy-MM',
          'projection.month.range': '2024-01,NOW',
          'projection.month.interval': '1',
          'projection.month.interval.unit': 'MONTHS',
          'storage.location.template': `${dailyRoot}workspace_id=\${workspace_id}/month=\${month}/`,
        },
        storageDescriptor: {
          location: dailyRoot,
          columns: eventTableColumns(),
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    daily.addResourceDependency(database);

    new CfnWorkGroup(this, 'WorkGroup', {
      name: this.workgroupName,
      description: 'Link service analytics queries',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery ?? ATHENA_BYTES_SCANNED_CUTOFF,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${this.resultsBucket.bucketName}/athena/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }

  get workgroupArn(): string {
    return Stack.of(this).formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workgroupName });
  }

  /** Run queries in the workgroup, read the table's metadata and the lake, read/write results. */
  grantQuery(grantee: IGrantable): void {
    const stack = Stack.of(this);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'athena:StartQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:StopQueryExecution',
        ],
        resources: [this.workgroupArn],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
          stack.formatArn({
            service: 'glue',
            resource: 'table',
            resourceName: `${this.databaseName}/${this.tableName}`,
          }),
          stack.formatArn({
            service: 'glue',
            resource: 'table',
            resourceName: `${this.databaseName}/${this.compactedTableName}`,
          }),
          stack.formatArn({
            service: 'glue',
            resource: 'table',
            resourceName: `${this.databaseName}/${this.dailyTableName}`,
          }),
        ],
      }),
    );
    // Exact S3 actions (no grantRead/grantReadWrite action wildcards): Athena reads the lake's
    // raw and compacted objects and writes its results (multipart, as Athena documents).
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket'],
        resources: [this.lakeBucket.bucketArn, this.resultsBucket.bucketArn],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucketMultipartUploads'], resources: [this.resultsBucket.bucketArn] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [
          this.lakeBucket.arnForObjects(`${RAW_PREFIX}*`),
          this.lakeBucket.arnForObjects(`${COMPACTED_PREFIX}*`),
        ],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.resultsBucket.arnForObjects('*')],
      }),
    );
    const id = (bucket: IBucket) => stack.getLogicalId(bucket.node.defaultChild as never);
    if (grantee.grantPrincipal instanceof Construct) {
      Validations.of(grantee.grantPrincipal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${id(this.lakeBucket)}.Arn>/${RAW_PREFIX}*]`,
        reason:
          'Athena reads every raw event object of the lake (partitions are created by Firehose at run time); read-only, events prefix only.',
      });
      Validations.of(grantee.grantPrincipal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${id(this.lakeBucket)}.Arn>/${COMPACTED_PREFIX}*]`,
        reason:
          'Athena reads the compacted Parquet of the lake (one folder per workspace and day, written by compaction); read-only, compacted prefix only.',
      });
      Validations.of(grantee.grantPrincipal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${id(this.resultsBucket)}.Arn>/*]`,
        reason: 'Athena writes query results under generated object names in the dedicated results bucket.',
      });
    }
  }
}
