import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { CfnKeyValueStore } from 'aws-cdk-lib/aws-cloudfront';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
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
}

/**
 * The hot-set writer (only with the `edgeHotLinks` context on, docs/edge.md): a function that an
 * EventBridge Scheduler schedule invokes every minute, allowed to describe, list and update the
 * hot-link KeyValueStore and nothing else of CloudFront. Within a run one serialized writer
 * applies every change; a second run overlapping it (an operator's invoke) fails on the store's
 * ETag (`IfMatch`) instead of overwriting, and the next minute's run starts from the store as it is.
 */
export class EdgeHotLinks extends Construct {
  readonly fn: ServiceFunction;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: EdgeHotLinksProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      fn: edgeHotSetConsumer,
      timeout: Duration.seconds(50),
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
    props.alarms.watchFunction('EdgeHotSet', this.fn);
  }
}
