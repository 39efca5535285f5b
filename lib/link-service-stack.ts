import { EventSpool } from './event-spool';
import { Annotations, CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { HttpMethod, type HttpApi, type HttpRouteIntegration } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { handlerGrants, routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { required } from '@shared/util/required';
import { Analytics } from './analytics';
import { authFailureLimitFromContext } from './auth-settings';
import { auditRetentionDaysFromContext, touchesAuditLog } from './audit-settings';
import { AUTH_FAILURE_LIMIT_ENV } from '@shared/config/auth-failure-limit';
import { AUDIT_RETENTION_ENV } from '@shared/config/audit-retention';
import {
  capacityFromContext,
  checkReservations,
  CLICK_PATH_HANDLERS,
  edgeCapacityWarnings,
  type CapacitySettings,
} from './capacity';
import { EventLake } from './event-lake';
import { EventPipeline, eventStreamCapacity } from './event-pipeline';
import { EdgeClickLogs } from './edge-click-logs';
import { EdgeHotLinks } from './edge-hot-links';
import { LakeCompaction } from './lake-compaction';
import { LinkTable } from './link-table';
import { OutboundEvents } from './outbound-events';
import { ServiceAlarms } from './service-alarms';
import { ServiceDashboard } from './service-dashboard';
import { ServiceFunction } from './service-function';
import { ServiceHttpApi, type ServiceHttpApiProps } from './service-http-api';
import { clickPathHandlers, TraceSampling } from './trace-sampling';
import { EdgeFrontDoor } from './edge-front-door';
import { ConsoleFrontDoor, DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN } from './console-front-door';
import { ORIGIN_VERIFY_SECRET_ARN_ENV } from '@shared/http/origin-verify';
import { WorkspaceDataAdmin } from './workspace-data-admin';
import { frontDoorContext } from './front-door/front-door-context';

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());

/** Composes the service: the table, the service HTTP API, the edge's front door, and one function per route-table handler. */
export class LinkServiceStack extends Stack {
  readonly table: LinkTable;
  readonly eventLake: EventLake;
  readonly alarms: ServiceAlarms;
  readonly eventPipeline: EventPipeline;
  readonly eventSpool: EventSpool;
  readonly analytics: Analytics;
  readonly lakeCompaction: LakeCompaction;
  /** Hot links answered in the edge location: only with the `edgeHotLinks` context on (cdk.json sets it). */
  readonly edgeHotLinks?: EdgeHotLinks;
  /** The edge-answered clicks' real-time logs and their consumer: with `edgeHotLinks` only. */
  readonly edgeClickLogs?: EdgeClickLogs;
  readonly outbound: OutboundEvents;
  readonly serviceApi: HttpApi;
  readonly frontDoor: EdgeFrontDoor;
  /** The web console's distribution (a nested stack). */
  readonly consoleFrontDoor: ConsoleFrontDoor;
  readonly workspaceDataAdmin: WorkspaceDataAdmin;
  readonly functions = new Map<string, ServiceFunction>();
  readonly dashboard: ServiceDashboard;
  readonly capacity: CapacitySettings;
  /** Failed API keys allowed per address per five minutes (context `authFailureLimit`), on every keyed function. */
  readonly authFailureLimit: number;
  /** Days audit-log entries are kept (context `auditRetentionDays`), on every function that writes or reads them. */
  readonly auditRetentionDays: number;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.capacity = capacityFromContext(this.node);
    this.authFailureLimit = authFailureLimitFromContext(this.node);
    this.auditRetentionDays = auditRetentionDaysFromContext(this.node);
    const reservationOf = (route: RouteDef) =>
      CLICK_PATH_HANDLERS.includes(route.handler)
        ? this.capacity.clickPathReservedConcurrency
        : route.grants.analytics
          ? this.capacity.analyticsReservedConcurrency
          : undefined;
    this.table = new LinkTable(this, 'Table');
    this.eventLake = new EventLake(this, 'EventLake');
    this.alarms = new ServiceAlarms(this, 'Alarms');
    this.alarms.watchTable(this.table);
    this.eventPipeline = new EventPipeline(this, 'EventPipeline', { bucket: this.eventLake.bucket, table: this.table });
    this.alarms.watchEventStream(this.eventPipeline.eventStream.streamName, this.eventPipeline.deliveryStream.ref);
    this.eventSpool = new EventSpool(this, 'EventSpool', {
      stream: this.eventPipeline.eventStream,
      table: this.table,
      alarms: this.alarms,
    });
    this.eventPipeline.watch(this.alarms);
    this.eventLake.watch(this.alarms);
    this.analytics = new Analytics(this, 'Analytics', {
      lakeBucket: this.eventLake.bucket,
      accessLogsBucket: this.eventLake.accessLogs,
    });
    this.lakeCompaction = new LakeCompaction(this, 'LakeCompaction', {
      lakeBucket: this.eventLake.bucket,
      table: this.table,
      analytics: this.analytics,
      alarms: this.alarms,
    });
    this.outbound = new OutboundEvents(this, 'Outbound', { table: this.table, alarms: this.alarms });
    this.workspaceDataAdmin = new WorkspaceDataAdmin(this, 'WorkspaceDataAdmin', {
      table: this.table,
      lakeBucket: this.eventLake.bucket,
      analytics: this.analytics,
      failuresBuckets: [this.eventPipeline.counterFailures.bucket, this.outbound.publishFailures.bucket],
    });

    const functionFor = (route: RouteDef) => {
      let fn = this.functions.get(route.handler);
      if (!fn) {
        // One function per handler, granted the union of its rows (edge-links answers several):
        // its table access is computed from the rows' declarations (shared/routes/table-access.ts).
        const handler = handlerGrants(route);
        fn = new ServiceFunction(this, pascal(route.handler), {
          fn: route,
          reservedConcurrentExecutions: reservationOf(route),
        }).bindTable(this.table);
        if (handler.events) {
          fn.bindEvents(this.eventPipeline.eventStream);
          this.eventSpool.bindSpool(fn);
        }
        if (routeTable.some((r) => r.handler === route.handler && (r.credential !== 'none' || r.authenticatesKey))) {
          fn.addEnvironment(AUTH_FAILURE_LIMIT_ENV, String(this.authFailureLimit));
        }
        if (touchesAuditLog(route)) fn.addEnvironment(AUDIT_RETENTION_ENV, String(this.auditRetentionDays));
        if (handler.analytics) fn.bindAnalytics(this.analytics);
        this.functions.set(route.handler, fn);
        this.alarms.watchFunction(pascal(route.handler), fn);
      }
      return fn;
    };
    const integrations = new Map<string, HttpRouteIntegration>();
    const integrationFor = (route: RouteDef) => {
      let integration = integrations.get(route.handler);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascal(route.handler)}Integration`, functionFor(route));
        integrations.set(route.handler, integration);
      }
      return integration;
    };

    // The v1 service API stays on API Gateway.
    const defaultRoute = routeTable.find((r) => r.api === 'service' && r.path === '$default');
    this.serviceApi = new ServiceHttpApi(this, 'ServiceApi', {
      apiName: `${id}-service`,
      defaultIntegration: defaultRoute ? integrationFor(defaultRoute) : undefined,
      throttle: this.capacity.serviceApi satisfies ServiceHttpApiProps['throttle'],
    }).api;
    for (const route of routeTable) {
      if (route.api !== 'service' || route.path === '$default') continue;
      this.serviceApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route),
      });
    }

    // The edge: Lambda function URLs (RESPONSE_STREAM) behind CloudFront SaaS Manager.
    const edgeHandlers = [...new Set(routeTable.filter((r) => r.api === 'edge').map((r) => r.handler))];
    this.frontDoor = new EdgeFrontDoor(this, 'EdgeFrontDoor', {
      ...frontDoorContext(this),
      origins: edgeHandlers.map((handler) => {
        const rows = routeTable.filter((r) => r.api === 'edge' && r.handler === handler);
        const patterns = [...new Set(rows.map((r) => (r.path === '$default' || r.path.includes('{') ? '*' : r.path)))];
        return {
          fn: functionFor(required(rows[0], `a route row for edge handler ${handler}`)),
          pathPatterns: patterns,
          cacheable: patterns.every((p) => p.startsWith('/.well-known/')),
        };
      }),
    });
    if (this.frontDoor.hotLinkStore) {
      this.edgeHotLinks = new EdgeHotLinks(this, 'EdgeHotLinks', {
        store: this.frontDoor.hotLinkStore,
        table: this.table,
        alarms: this.alarms,
        clickCounters: this.eventPipeline.counters,
      });
      this.edgeClickLogs = new EdgeClickLogs(this, 'EdgeClickLogs', {
        distribution: this.frontDoor.distribution,
        table: this.table,
        eventStream: this.eventPipeline.eventStream,
        capacity: eventStreamCapacity(
          this.node.tryGetContext('edgeClickLogShards') ?? this.node.tryGetContext('eventStreamShards'),
          'edgeClickLogShards',
        ),
        alarms: this.alarms,
      });
      // Its kept failures hold click-log lines of the workspace's links: erasure rewrites them too.
      this.workspaceDataAdmin.addFailuresBucket(this.edgeClickLogs.failures.bucket);
    }

    // The web console: its own distribution, its files and /v1/* on one origin. The v1 functions
    // trust CloudFront-Viewer-Address on requests carrying the front door's origin secret.
    const doorContext = frontDoorContext(this);
    const v1Handlers = new Set(
      routeTable.filter((r) => r.api === 'service' && r.path.startsWith('/v1/')).map((r) => r.handler),
    );
    for (const handler of v1Handlers) {
      const fn = required(this.functions.get(handler), `the ${handler} function`);
      this.frontDoor.originSecret.grantRead(fn);
      fn.addEnvironment(ORIGIN_VERIFY_SECRET_ARN_ENV, this.frontDoor.originSecret.secretArn);
    }
    this.consoleFrontDoor = new ConsoleFrontDoor(this, 'Console', {
      serviceName: this.stackName,
      serviceApi: this.serviceApi,
      originSecret: this.frontDoor.originSecret,
      waf: doorContext.waf,
      signInRateLimitPer5Min: signInRateLimitFromContext(this),
      originSecretRotation: doorContext.originSecretRotation,
      distDir: stringContext(this, 'consoleDist'),
    });

    // The click path is traced at 1 in 1,000 requests, not per request (X-Ray bills per trace recorded).
    new TraceSampling(this, 'TraceSampling', {
      clickPath: clickPathHandlers.map((handler) => required(this.functions.get(handler), `the ${handler} function`)),
    });
    this.dashboard = new ServiceDashboard(this, 'Operations', {
      functions: this.functions,
      serviceApi: this.serviceApi,
      edgeDistributionId: this.frontDoor.distribution.attrId,
      table: this.table,
      streamName: this.eventPipeline.eventStream.streamName,
      deliveryStreamName: this.eventPipeline.deliveryStream.ref,
      alarms: this.alarms.alarms,
    });
    const reservedTotal = [...this.functions.values()].reduce((sum, fn) => sum + (fn.reservedConcurrency ?? 0), 0);
    checkReservations(this.capacity, reservedTotal);
    const edgeLinks = required(this.functions.get('edge-links'), 'the edge-links function');
    const stream = eventStreamCapacity(this.node.tryGetContext('eventStreamShards'));
    for (const warning of edgeCapacityWarnings(this.capacity, edgeLinks.reservedConcurrency, reservedTotal, stream)) {
      Annotations.of(edgeLinks).addWarningV2('@linkservice/edge-capacity', warning);
    }

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Authorization is the route Lambda's own: every route checks its key kind from the route table (SHA-256 lookup, 401/403 in the v1 envelope); public routes (edge, OpenAPI) are public by design.",
    });

    new CfnOutput(this, 'BaseUrl', { value: this.serviceApi.apiEndpoint });
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.consoleFrontDoor.url,
      description: 'The web console (sign in with a server key); its /v1/* is the service API',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    // For `admin replay-events` (EVENTS_STREAM_NAME, EVENTS_SPOOL_QUEUE_URL, EVENTS_SPOOL_DLQ_URL).
    new CfnOutput(this, 'EventsStreamName', { value: this.eventPipeline.eventStream.streamName });
    new CfnOutput(this, 'EventsSpoolQueueUrl', { value: this.eventSpool.queue.queueUrl });
    new CfnOutput(this, 'EventsSpoolDlqUrl', { value: this.eventSpool.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'EventBusName', { value: this.outbound.bus.eventBusName });
    // For `admin export-workspace` / `delete-workspace` (LAKE_BUCKET, ATHENA_WORKGROUP, ATHENA_DATABASE; assume the role).
    new CfnOutput(this, 'EventLakeBucketName', { value: this.eventLake.bucket.bucketName });
    new CfnOutput(this, 'AthenaWorkgroup', { value: this.analytics.workgroupName });
    new CfnOutput(this, 'AthenaDatabase', { value: this.analytics.databaseName });
    new CfnOutput(this, 'WorkspaceDataAdminRoleArn', { value: this.workspaceDataAdmin.role.roleArn });
    // The stream consumers' kept failures (`admin replay-stream-failures --bucket`; erasure: STREAM_FAILURES_BUCKETS)
    // and the Athena query results (erasure: ATHENA_RESULTS_BUCKET).
    for (const [id, failures] of [
      ['CounterFailuresBucketName', this.eventPipeline.counterFailures],
      ['PublishFailuresBucketName', this.outbound.publishFailures],
      // With edgeHotLinks only: the click-log consumer's (its log lines name no workspace: docs/edge.md).
      ...(this.edgeClickLogs ? [['EdgeClickLogFailuresBucketName', this.edgeClickLogs.failures] as const] : []),
    ] as const)
      new CfnOutput(this, id, {
        value: failures.bucket.bucketName,
        description: `Failed batches of the ${failures.consumer}, kept whole (admin replay-stream-failures --bucket)`,
      });
    new CfnOutput(this, 'AthenaResultsBucketName', {
      value: this.analytics.resultsBucket.bucketName,
      description: 'Athena query results (expire after 7 days; erased whole by admin delete-workspace)',
    });
    // For a manual compaction run after an alarm (docs/analytics.md).
    new CfnOutput(this, 'LakeCompactionFunctionName', { value: this.lakeCompaction.fn.functionName });
  }
}

const stringContext = (scope: Construct, name: string): string | undefined => {
  const value: unknown = scope.node.tryGetContext(name);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** Context `consoleSignInRateLimitPer5Min`: sign-ins per address per 5 minutes before the console's WAF answers 429. */
const signInRateLimitFromContext = (scope: Construct): number => {
  const raw: unknown = scope.node.tryGetContext('consoleSignInRateLimitPer5Min');
  if (raw === undefined || raw === null || raw === '') return DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN;
  const value = Number(raw);
  // WAF's rate-based rules take 10 to 2,000,000,000 requests per window.
  if (!Number.isInteger(value) || value < 10 || value > 2_000_000_000)
    throw new Error(
      `-c consoleSignInRateLimitPer5Min must be a whole number from 10 to 2000000000, got ${JSON.stringify(raw)}`,
    );
  return value;
};
