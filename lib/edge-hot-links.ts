import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { CfnKeyValueStore } from 'aws-cdk-lib/aws-cloudfront';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventSourceMapping, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { EDGE_HOT_LINKS_ENV } from '@shared/edge/hot-links/hot-candidates';
import { HOT_LINKS_KVS_ARN_ENV } from '@shared/edge/hot-links/kvs-writer';
import { edgeHotSetConsumer } from '@shared/routes/consumer-specs';
import type { ServiceAlarms } from './service-alarms';
import { ServiceFunction } from './service-function';

/** The hot set is refreshed this often (EventBridge Scheduler's finest rate). */
export const HOT_SET_INTERVAL = Duration.minutes(1);

export interface EdgeHotLinksProps {
  store: CfnKeyValueStore;
  /** The service table: the writer reads link items and host records (LINK#, HOST#) only. */
  table: ITableV2;
  alarms: ServiceAlarms;
  /** The click counter consumer: it nominates the links that just turned hot (EDGEHOT# item). */
  clickCounters: ServiceFunction;
}

/**
 * The hot-set writer (only with the `edgeHotLinks` context on, docs/edge.md): one function that
 * an EventBridge Scheduler schedule invokes every minute (the refresh) and the table's stream
 * feeds (LINK items' MODIFY and REMOVE: the invalidations), allowed to describe, list and update
 * the hot-link KeyValueStore and nothing else of CloudFront. Its reserved concurrency is 1, so
 * the refresh and the invalidations never run at the same time: `UpdateKeys` needs the store's
 * ETag, and two writers would fail each other. A throttled schedule invoke waits in Lambda's
 * async queue (up to a minute), a throttled stream batch is retried by its mapping. A conflict
 * that still happens (an operator's invoke) is retried once from a fresh ETag.
 */
export class EdgeHotLinks extends Construct {
  readonly fn: ServiceFunction;
  readonly schedule: Schedule;
  readonly streamMapping: EventSourceMapping;

  constructor(scope: Construct, id: string, props: EdgeHotLinksProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      fn: edgeHotSetConsumer,
      timeout: Duration.seconds(50),
      // The one writer: the refresh and the invalidations, one invocation at a time.
      reservedConcurrentExecutions: 1,
    });
    // A missed refresh is the next minute's work, not an async retry's.
    this.fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.fn.bindTable(props.table);
    this.fn.addEnvironment(HOT_LINKS_KVS_ARN_ENV, props.store.attrArn);
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'cloudfront-keyvaluestore:DescribeKeyValueStore',
          'cloudfront-keyvaluestore:ListKeys',
          'cloudfront-keyvaluestore:UpdateKeys',
        ],
        resources: [props.store.attrArn],
      }),
    );

    const scheduleRole = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invoke the edge hot-set writer',
    });
    Validations.of(scheduleRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.fn.node.defaultChild as never)}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the hot-set writer and its versions (grantInvoke); one function only.',
    });
    this.schedule = new Schedule(this, 'Schedule', {
      description: "Every minute: refresh the edge's hot-link KeyValueStore from the links' live counters",
      schedule: ScheduleExpression.rate(HOT_SET_INTERVAL),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(this.fn, { role: scheduleRole, retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });
    // Invalidations: the table's stream, LINK items changed or removed only (inserts are not in
    // the store; the function skips counter-only updates without reading the store). From the
    // latest record: what came before is the refresh's. A batch still failing after two retries
    // or older than five minutes is let go: the refresh re-reads every link in the store each minute.
    props.table.grantStreamRead(this.fn);
    const streamArn = props.table.tableStreamArn;
    if (streamArn === undefined) throw new Error('the hot-set invalidations need the table stream turned on');
    this.streamMapping = new EventSourceMapping(this, 'StreamMapping', {
      target: this.fn,
      eventSourceArn: streamArn,
      startingPosition: StartingPosition.LATEST,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      retryAttempts: 2,
      maxRecordAge: Duration.minutes(5),
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.or('MODIFY', 'REMOVE'),
          dynamodb: { Keys: { sk: { S: FilterRule.or('LINK') } } },
        }),
      ],
    });

    // Discovery: the click counter consumer nominates the links that just turned hot in the
    // hot-set item (its grant is in its function spec), only with this feature on (its flag).
    props.clickCounters.addEnvironment(EDGE_HOT_LINKS_ENV, 'true');

    props.alarms.watchFunction('EdgeHotSet', this.fn);
    new CfnOutput(Stack.of(this), 'HotLinksKeyValueStoreArn', {
      value: props.store.attrArn,
      description: "The edge's hot-link KeyValueStore (admin edge hot-set --kvs-arn, or HOT_LINKS_KVS_ARN)",
    });
  }
}
