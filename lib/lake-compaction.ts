import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { envNames } from '@shared/config/config';
import { metricNames, metricsNamespace, serviceName } from '@shared/util/telemetry-names';
import { lakeCompactionEnvNames } from '@shared/analytics/lake/compaction-config';
import { COMPACTION_LOCK_KEY } from '@shared/analytics/lake/compaction-lock';
import { COMPACTED_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import { lakeCompactionConsumer } from '@shared/routes/consumer-specs';
import type { Analytics } from './analytics';
import type { ServiceAlarms } from './service-alarms';
import { ServiceFunction } from './service-function';

/** Minute past each hour the schedule fires: after compaction's 10-minute grace, so the last hour is closed. */
export const COMPACTION_MINUTE = 15;
/** Runs are hourly; the function's timeout stays well below, and below the run lock's TTL (compaction-lock.ts). */
export const COMPACTION_INTERVAL = Duration.hours(1);
export const COMPACTION_TIMEOUT = Duration.minutes(15);
/** The "not running" alarm fires after this long without a successful run (three missed hours). */
export const COMPACTION_STALE_AFTER = Duration.hours(3);
/** The backlog alarm fires while a run finds the oldest uncompacted hour older than this. */
export const COMPACTION_BACKLOG_ALARM_AFTER = Duration.hours(2);

export interface LakeCompactionProps {
  lakeBucket: IBucket;
  /** The service table: the run settles the click counters of link items (LINK# only). */
  table: ITableV2;
  analytics: Analytics;
  alarms: ServiceAlarms;
}

/**
 * The deployed compaction job (docs/analytics.md): an EventBridge Scheduler schedule invokes,
 * every hour at :15, a function that runs the plan of the local job (compaction-plan.ts) on
 * Athena (athena-compaction.ts): UNLOAD of the closed hours' new events into
 * compacted/workspace_id=/dt=/ as Parquet, then removal of the raw objects it read, then the
 * watermark. Alarms: any failed run (Lambda errors), and no run at all for 3 hours.
 */
export class LakeCompaction extends Construct {
  readonly fn: ServiceFunction;
  readonly schedule: Schedule;
  readonly staleAlarm: Alarm;
  readonly backlogAlarm: Alarm;

  constructor(scope: Construct, id: string, props: LakeCompactionProps) {
    super(scope, id);
    const { lakeBucket, analytics, table } = props;
    this.fn = new ServiceFunction(this, 'Function', {
      fn: lakeCompactionConsumer,
      memorySize: 256,
      timeout: COMPACTION_TIMEOUT,
      // One run at a time is the run lock's job (an S3 object written conditionally), not a reserved
      // concurrency that would come out of the account's unreserved pool the click path plans on.
    });
    // A failed run is retried by the next hourly run (idempotent), not by Lambda's async retries.
    this.fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.hours(1) });

    // Read side exactly as the analytics routes: Athena on the workgroup, Glue metadata, lake reads, results.
    analytics.grantQuery(this.fn);
    // Athena writes the UNLOAD output (multipart) under compacted/; the run writes the watermark there.
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [lakeBucket.arnForObjects(`${COMPACTED_PREFIX}*`)],
      }),
    );
    this.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:ListBucketMultipartUploads'], resources: [lakeBucket.bucketArn] }),
    );
    // It removes the raw objects it compacted, the hourly compacted objects of days merged into
    // daily files (compacted/workspace_id=*, never compacted/daily/), and releases its run lock.
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [
          lakeBucket.arnForObjects(`${RAW_PREFIX}*`),
          lakeBucket.arnForObjects(`${COMPACTED_PREFIX}workspace_id=*`),
          lakeBucket.arnForObjects(COMPACTION_LOCK_KEY),
        ],
      }),
    );
    // The settle after a run (settle-click-counters.ts): it reads a link's counters and sets the
    // compacted hours' distinct count, on link items only (as the click counter consumer may).
    this.fn.bindTable(table);
    this.fn.addEnvironment(lakeCompactionEnvNames.lakeBucket, lakeBucket.bucketName);
    this.fn.addEnvironment(envNames.athenaWorkgroup, analytics.workgroupName);
    this.fn.addEnvironment(envNames.athenaDatabase, analytics.databaseName);
    const bucketId = Stack.of(this).getLogicalId(lakeBucket.node.defaultChild as never);
    Validations.of(this.fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${COMPACTED_PREFIX}*]`,
      reason:
        'Athena UNLOAD writes Parquet under generated names into compacted/workspace_id=/dt=/ (one folder per workspace and day); compacted prefix only, no delete.',
    });
    Validations.of(this.fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${COMPACTED_PREFIX}workspace_id=*]`,
      reason:
        'The daily merge deletes the hourly compacted objects (generated names) of days merged into daily files, a run after the switch; never compacted/daily/.',
    });
    Validations.of(this.fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${RAW_PREFIX}*]`,
      reason:
        'Compaction deletes the raw objects it compacted (named by Firehose at run time); events prefix only, no write.',
    });

    // The schedule's own role, assumable by Scheduler for this account only, may only invoke this function.
    const scheduleRole = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invoke the lake compaction function',
    });
    Validations.of(scheduleRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.fn.node.defaultChild as never)}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the compaction function and its versions (grantInvoke); one function only.',
    });
    this.schedule = new Schedule(this, 'Schedule', {
      description: 'Hourly: compact the closed hours of the raw event lake into per-workspace Parquet',
      schedule: ScheduleExpression.cron({ minute: String(COMPACTION_MINUTE) }),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(this.fn, { role: scheduleRole, retryAttempts: 2, maxEventAge: Duration.minutes(30) }),
    });

    props.alarms.watchFunction('LakeCompaction', this.fn);
    // No run in 3 hours (the schedule disabled or deleted, its invocations dropped): fewer than one
    // invocation; missing data breaches too. Failing runs are the Errors alarm's.
    this.staleAlarm = new Alarm(this, 'NotRunning', {
      metric: this.fn.metricInvocations({ period: COMPACTION_STALE_AFTER, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
      alarmDescription:
        'Lake compaction has not been invoked for 3 hours: raw objects pile up and queries cost more (docs/analytics.md)',
    });
    this.staleAlarm.addAlarmAction(new SnsAction(props.alarms.topic));
    props.alarms.alarms.push(this.staleAlarm);

    // Runs happen but fall behind (a backlog bigger than a run works off, units failing): each run
    // publishes how old the oldest uncompacted hour is (after its units); above 2 hours, page.
    // No datum (no run) is the NotRunning alarm's case.
    this.backlogAlarm = new Alarm(this, 'Backlog', {
      metric: new Metric({
        namespace: metricsNamespace,
        metricName: metricNames.compactionBacklog,
        dimensionsMap: { service: serviceName },
        statistic: 'Maximum',
        period: COMPACTION_INTERVAL,
      }),
      threshold: COMPACTION_BACKLOG_ALARM_AFTER.toSeconds(),
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'Lake compaction is behind: the oldest uncompacted hour is more than 2 hours old (docs/analytics.md)',
    });
    this.backlogAlarm.addAlarmAction(new SnsAction(props.alarms.topic));
    props.alarms.alarms.push(this.backlogAlarm);
  }
}
