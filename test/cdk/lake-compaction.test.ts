import { describe, expect, it } from 'vitest';
import { COMPACTION_LOCK_KEY, COMPACTION_LOCK_TTL_MS } from '@shared/analytics/lake/compaction-lock';
import { COMPACTION_GRACE_MS } from '@shared/analytics/lake/compaction-plan';
import { COMPACTED_PREFIX, DAILY_PREFIX, ERRORS_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import { ATHENA_BYTES_SCANNED_CUTOFF, COMPACTION_UNIT_MAX_SCAN_BYTES } from '@shared/analytics/lake/compaction-units';
import { metricNames, metricsNamespace } from '@shared/util/telemetry-names';
import {
  COMPACTION_BACKLOG_ALARM_AFTER,
  COMPACTION_INTERVAL,
  COMPACTION_MINUTE,
  COMPACTION_STALE_AFTER,
  COMPACTION_TIMEOUT,
} from '@lib/lake-compaction';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const json = template.toJSON();
const resources = json.Resources as Record<string, any>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

const fn = stack.lakeCompaction.fn;
const fnId = idOf(fn);
const roleId = idOf(fn.role);
const lakeId = idOf(stack.eventLake.bucket);
const resultsId = idOf(stack.analytics.resultsBucket);
const statementsOfRole = (id: string) =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === id))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as any[]);
const statements = statementsOfRole(roleId);
const actionsOf = (s: any) => [s.Action].flat() as string[];
/** Every (action, resource) pair the compaction role is allowed, resources as JSON text. */
const grants = statements.flatMap((s) =>
  actionsOf(s).flatMap((a) => [s.Resource].flat().map((r: unknown) => `${a} ${JSON.stringify(r)}`)),
);
const objectsUnder = (bucketId: string, prefix: string) =>
  JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${prefix}*`]] });
const bucket = (bucketId: string) => JSON.stringify({ 'Fn::GetAtt': [bucketId, 'Arn'] });

describe('CDK: the deployed lake compaction (Scheduler -> Lambda -> Athena UNLOAD)', () => {
  it("is one ServiceFunction (Node 22, arm64, traced) with a 15 min timeout under its run lock's TTL, no reservation, no async retries and its env", () => {
    const props = resources[fnId].Properties;
    expect(props).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: COMPACTION_TIMEOUT.toSeconds(),
      TracingConfig: { Mode: 'Active' },
    });
    // One run at a time is the S3 run lock's job; a live run's lock never expires under it.
    expect(props.ReservedConcurrentExecutions).toBeUndefined();
    expect(COMPACTION_TIMEOUT.toMilliseconds()).toBeLessThan(COMPACTION_LOCK_TTL_MS);
    expect(Object.keys(props.Environment.Variables).sort()).toEqual([
      'ATHENA_DATABASE',
      'ATHENA_WORKGROUP',
      'LAKE_BUCKET',
      'NODE_OPTIONS',
      'TABLE_NAME',
    ]);
    expect(props.Environment.Variables.LAKE_BUCKET).toEqual({ Ref: lakeId });
    const [, invokeConfig] = ofType('AWS::Lambda::EventInvokeConfig').find(
      ([, r]) => r.Properties.FunctionName.Ref === fnId,
    )!;
    expect(invokeConfig.Properties.MaximumRetryAttempts).toBe(0);
  });

  it('runs on an EventBridge Scheduler schedule, hourly after the grace period, through a role that may only invoke it', () => {
    const schedules = ofType('AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const [, schedule] = schedules[0]!;
    expect(schedule.Properties.ScheduleExpression).toBe(`cron(${COMPACTION_MINUTE} * * * ? *)`);
    expect(schedule.Properties.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(schedule.Properties.State).toBe('ENABLED');
    expect(schedule.Properties.Target.Arn).toEqual({ 'Fn::GetAtt': [fnId, 'Arn'] });
    // The run at :15 finds the previous hour closed (grace 10 min) and ends before the next one.
    expect(COMPACTION_MINUTE * 60_000).toBeGreaterThan(COMPACTION_GRACE_MS);
    expect(COMPACTION_TIMEOUT.toMinutes()).toBeLessThan(COMPACTION_INTERVAL.toMinutes());

    const schedulerRoleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0];
    const trust = resources[schedulerRoleId].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0].Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    expect(trust[0].Condition).toEqual({ StringEquals: { 'aws:SourceAccount': '111111111111' } });
    const schedulerStatements = statementsOfRole(schedulerRoleId);
    expect(schedulerStatements.flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
    for (const resource of schedulerStatements.flatMap((s) => [s.Resource].flat()))
      expect(JSON.stringify(resource)).toContain(fnId);
  });

  it('has least privilege: the workgroup, the three Glue tables, lake reads, compacted writes, raw and hourly deletes, results', () => {
    const athena = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('athena:')));
    expect(athena).toHaveLength(1);
    expect(actionsOf(athena[0]).sort()).toEqual([
      'athena:GetQueryExecution',
      'athena:GetQueryResults',
      'athena:StartQueryExecution',
      'athena:StopQueryExecution',
    ]);
    expect(JSON.stringify(athena[0].Resource)).toContain(`workgroup/${stack.analytics.workgroupName}`);

    const glue = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('glue:')));
    expect(glue).toHaveLength(1);
    expect(actionsOf(glue[0]).sort()).toEqual(['glue:GetDatabase', 'glue:GetPartitions', 'glue:GetTable']);
    const glueResources = JSON.stringify(glue[0].Resource);
    expect(glueResources).toContain(`table/${stack.analytics.databaseName}/events`);
    expect(glueResources).toContain(`table/${stack.analytics.databaseName}/events_compacted`);
    expect(glueResources).toContain(`table/${stack.analytics.databaseName}/events_daily`);

    // Exactly these S3 grants on the lake: read raw + compacted, write compacted (daily files
    // included), delete raw and the hourly compacted files of merged days.
    const lakeGrants = grants.filter((g) => g.startsWith('s3:') && g.includes(lakeId)).sort();
    expect(lakeGrants).toEqual(
      [
        `s3:GetBucketLocation ${bucket(lakeId)}`,
        `s3:ListBucket ${bucket(lakeId)}`,
        `s3:ListBucketMultipartUploads ${bucket(lakeId)}`,
        `s3:GetObject ${objectsUnder(lakeId, RAW_PREFIX)}`,
        `s3:GetObject ${objectsUnder(lakeId, COMPACTED_PREFIX)}`,
        `s3:PutObject ${objectsUnder(lakeId, COMPACTED_PREFIX)}`,
        `s3:AbortMultipartUpload ${objectsUnder(lakeId, COMPACTED_PREFIX)}`,
        `s3:ListMultipartUploadParts ${objectsUnder(lakeId, COMPACTED_PREFIX)}`,
        `s3:DeleteObject ${objectsUnder(lakeId, RAW_PREFIX)}`,
        `s3:DeleteObject ${objectsUnder(lakeId, `${COMPACTED_PREFIX}workspace_id=`)}`,
        `s3:DeleteObject ${JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [lakeId, 'Arn'] }, `/${COMPACTION_LOCK_KEY}`]] })}`,
      ].sort(),
    );
    // Never: writing raw objects, deleting daily files or the watermark (only hourly files and its own lock object), touching errors/.
    expect(
      grants
        .filter((g) => g.startsWith('s3:DeleteObject') && g.includes(COMPACTED_PREFIX))
        .map((g) => g.includes(COMPACTION_LOCK_KEY) || g.includes(`/${COMPACTED_PREFIX}workspace_id=*`))
        .sort(),
    ).toEqual([true, true]);
    expect(grants.some((g) => g.startsWith('s3:DeleteObject') && g.includes(DAILY_PREFIX))).toBe(false);
    expect(grants.some((g) => g.startsWith('s3:PutObject') && g.includes(RAW_PREFIX))).toBe(false);
    expect(grants.some((g) => g.includes(ERRORS_PREFIX))).toBe(false);
    // Results bucket: Athena's result and UNLOAD manifest objects.
    expect(
      grants
        .filter((g) => g.includes(resultsId))
        .map((g) => g.split(' ')[0])
        .sort(),
    ).toEqual(
      [
        's3:AbortMultipartUpload',
        's3:GetBucketLocation',
        's3:GetObject',
        's3:ListBucket',
        's3:ListBucketMultipartUploads',
        's3:ListMultipartUploadParts',
        's3:PutObject',
      ].sort(),
    );
    // No wildcard actions, no Firehose; DynamoDB only to settle link counters: GetItem and
    // UpdateItem on LINK# items (the settle after a run), nothing else of the table.
    for (const s of statements) expect(actionsOf(s).some((a) => a.includes('*'))).toBe(false);
    expect(grants.some((g) => g.startsWith('firehose:'))).toBe(false);
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    // Its row's Read (GetItem) and Write (UpdateItem) statements, both on LINK# only.
    expect(dynamo).toHaveLength(2);
    expect(dynamo.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    for (const s of dynamo)
      expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LINK#*'] } });
  });

  it('keeps raw objects until compacted: raw never expires before the compacted data of the same events would', () => {
    const rules = resources[lakeId].Properties.LifecycleConfiguration.Rules as any[];
    const raw = rules.find((r) => r.Prefix === RAW_PREFIX)!;
    const compacted = rules.find((r) => r.Prefix === COMPACTED_PREFIX)!;
    // Compaction deletes raw objects within the hour; the rule is only a backstop at the lake's retention.
    expect(raw.ExpirationInDays).toBeGreaterThanOrEqual(compacted.ExpirationInDays);
    expect(raw.ExpirationInDays * 24).toBeGreaterThan(COMPACTION_STALE_AFTER.toHours() * 100);
    expect(compacted.NoncurrentVersionExpiration).toBeUndefined();
  });

  it('alarms on a failed run and on no run for 3 hours, to the service topic', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const errors = alarms.find((a) => a.MetricName === 'Errors' && JSON.stringify(a.Dimensions).includes(fnId))!;
    expect(errors).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const stale = alarms.find((a) => a.MetricName === 'Invocations' && JSON.stringify(a.Dimensions).includes(fnId))!;
    expect(stale).toMatchObject({
      Period: COMPACTION_STALE_AFTER.toSeconds(),
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    const topicId = idOf(stack.alarms.topic);
    for (const alarm of [errors, stale]) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('alarms while a run finds the oldest uncompacted hour more than 2 hours old (the backlog the runs publish)', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const backlog = alarms.find((a) => a.MetricName === metricNames.compactionBacklog)!;
    expect(backlog).toMatchObject({
      Namespace: metricsNamespace,
      Statistic: 'Maximum',
      Period: COMPACTION_INTERVAL.toSeconds(),
      Threshold: 2 * 3600,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      // No run, no datum: that is the NotRunning alarm's case.
      TreatMissingData: 'notBreaching',
    });
    expect(COMPACTION_BACKLOG_ALARM_AFTER.toHours()).toBe(2);
    expect(backlog.Dimensions).toEqual([{ Name: 'service', Value: 'link-service' }]);
    expect(backlog.AlarmActions).toEqual([{ Ref: idOf(stack.alarms.topic) }]);
    // A run at :15 that compacted every closed hour leaves the oldest uncompacted hour 15 minutes old.
    expect(COMPACTION_MINUTE * 60).toBeLessThan(backlog.Threshold);
  });

  it("plans every compaction statement at no more than half the deployed workgroup's bytes-scanned cutoff", () => {
    const [, workgroup] = ofType('AWS::Athena::WorkGroup')[0]!;
    const cutoff = workgroup.Properties.WorkGroupConfiguration.BytesScannedCutoffPerQuery;
    expect(cutoff).toBe(ATHENA_BYTES_SCANNED_CUTOFF);
    expect(COMPACTION_UNIT_MAX_SCAN_BYTES * 2).toBeLessThanOrEqual(cutoff);
  });

  it('keeps the template well under the CloudFormation limits', () => {
    expect(Object.keys(resources).length).toBeLessThan(450);
    expect(JSON.stringify(json).length).toBeLessThan(1_000_000);
  });

  it('defines the daily table the merge writes: Parquet, one partition per workspace and month, with projection', () => {
    const table = Object.values(json.Resources as Record<string, { Type: string; Properties: any }>)
      .filter((r) => r.Type === 'AWS::Glue::Table')
      .find((t) => t.Properties.TableInput.Name === 'events_daily')!;
    const input = table.Properties.TableInput;
    expect(input.PartitionKeys).toEqual([
      { Name: 'workspace_id', Type: 'string' },
      { Name: 'month', Type: 'string' },
    ]);
    expect(input.Parameters).toMatchObject({
      classification: 'parquet',
      'projection.workspace_id.type': 'injected',
      'projection.month.type': 'date',
      'projection.month.format': 'yyyy-MM',
      'projection.month.interval.unit': 'MONTHS',
    });
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      `/${DAILY_PREFIX}workspace_id=\${workspace_id}/month=\${month}/`,
    );
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toContain('ParquetHiveSerDe');
  });
});
