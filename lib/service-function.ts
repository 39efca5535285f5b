import path from 'node:path';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { envNames } from '@shared/config/config';
import { projectRoot } from '@shared/local/paths';
import { bundleSettings, runtimeNodeOptions } from './bundle-settings';
import type { FunctionSpec } from '@shared/routes/function-spec';
import { handlerGrants } from '@shared/routes/route-table';
import { handlerEntry, routeTimeoutSeconds } from '@shared/routes/route-types';
import {
  functionTableAccess,
  tableReadActions,
  tableWriteActions,
  type TableAccessStatement,
} from '@shared/routes/table-access';
import type { Analytics } from './analytics';

/** Table actions by kind (shared/routes/table-access.ts). */
export { tableReadActions, tableWriteActions };

export interface ServiceFunctionProps {
  /** The route or consumer it runs: its entry, and the access its grants come from. */
  fn: FunctionSpec;
  memorySize?: number;
  /** Reserved concurrency (also the function's maximum); unset: the account's shared pool. */
  reservedConcurrentExecutions?: number;
  /** Functions that are not behind API Gateway (stream and queue consumers) may run longer. */
  timeout?: Duration;
}

/** One statement of `functionTableAccess` as IAM: LeadingKeys always; attributes and ReturnValues NONE when named. */
const policyOf = (table: ITableV2, statement: TableAccessStatement): PolicyStatement =>
  new PolicyStatement({
    sid: statement.sid,
    actions: [...statement.actions],
    resources: [statement.on === 'indexes' ? `${table.tableArn}/index/*` : table.tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': statement.leadingKeys.map((prefix) => `${prefix}*`) },
      ...(statement.attributes
        ? {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...statement.attributes] },
            StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
          }
        : {}),
    },
  });

/**
 * One Lambda per route, with every default decided here: Node.js 22 on arm64, ESM bundle
 * minified with source maps, JSON logs with retention (Powertools writes them), X-Ray active
 * tracing, short timeout. Access is granted only
 * through the bind* methods, which grant and set the environment together.
 */
export class ServiceFunction extends NodejsFunction {
  /** Its reserved concurrency, if any (the stack checks the account keeps 100 unreserved). */
  readonly reservedConcurrency?: number;
  /**
   * Its execution role: always there, since the constructor passes its own (Function's `role?` is
   * optional only for imported functions, which have none here). `declare`: only the type narrows.
   */
  declare readonly role: IRole;
  /** The route or consumer it runs (bindTable grants its access). */
  readonly spec: FunctionSpec;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    // Own role with only its log group: no AWS managed policy (AWSLambdaBasicExecutionRole).
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    super(scope, id, {
      role,
      entry: path.join(projectRoot, handlerEntry(props.fn)),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? props.fn.lambda?.memorySize ?? 512,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      timeout: props.timeout ?? Duration.seconds(routeTimeoutSeconds(props.fn)),
      // Lambda's advanced logging controls: JSON lines; the platform's START/END/REPORT lines are
      // INFO, so system level WARN drops them (duration and memory stay in CloudWatch's own Lambda
      // metrics); application level INFO keeps the metrics (EMF) lines, which Lambda counts as
      // INFO since they carry no level, and drops DEBUG.
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel.WARN,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      // X-Ray active tracing; how often is decided by the sampling rules (lib/trace-sampling.ts).
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { NODE_OPTIONS: runtimeNodeOptions },
      bundling: {
        format: OutputFormat.ESM,
        target: bundleSettings.target,
        minify: bundleSettings.minify,
        sourceMap: bundleSettings.sourcemap,
        mainFields: [...bundleSettings.mainFields],
        tsconfig: path.join(projectRoot, 'tsconfig.json'),
        banner: bundleSettings.banner,
        externalModules: [...bundleSettings.external],
      },
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords take no resource-level permissions.',
    });
    this.reservedConcurrency = props.reservedConcurrentExecutions;
    this.spec = props.fn;
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The product targets the Node.js 22 Lambda runtime (Node.js 22, arm64); runtime upgrades are a deliberate, tested change.',
    });
  }

  /**
   * Grants exactly the table access its spec declares (a route's rows, or a consumer's spec), and
   * sets TABLE_NAME: the statements of `functionTableAccess` (shared/routes/table-access.ts, which
   * the local grant guard enforces too), each on the table or its indexes and only on items whose
   * partition key starts with one of its prefixes (`dynamodb:LeadingKeys`). No Scan, no wildcard
   * action. The edge can therefore never read an API key or a webhook secret, nor write a link.
   */
  bindTable(table: ITableV2): this {
    const grants = handlerGrants(this.spec);
    if (grants.table === 'readWrite' && !grants.writes?.length)
      throw new Error(`Route ${this.node.id}: a readWrite route names the key prefixes it writes (grants.writes)`);
    const statements = functionTableAccess(this.spec);
    if (statements.length === 0) return this;
    for (const statement of statements) this.addToRolePolicy(policyOf(table, statement));
    if (statements.some((s) => s.on === 'indexes')) {
      const tableLogicalId = Stack.of(this).getLogicalId(table.node.defaultChild as never);
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
        reason:
          "Lists Query the table's own global secondary indexes, only on the index partitions the route names (dynamodb:LeadingKeys); the wildcard covers only this table's indexes.",
      });
    }
    this.addEnvironment(envNames.tableName, table.tableName);
    return this;
  }

  /**
   * Grants only `kinesis:PutRecords` on the event stream, and sets EVENTS_STREAM_NAME. (The
   * stream is encrypted with the AWS managed key `aws/kinesis`, which needs no KMS grant.)
   */
  bindEvents(stream: IStream): this {
    this.addToRolePolicy(new PolicyStatement({ actions: ['kinesis:PutRecords'], resources: [stream.streamArn] }));
    this.addEnvironment(envNames.eventsStreamName, stream.streamName);
    return this;
  }

  /** Grants running analytics queries (Athena, Glue, lake read, results) and sets their env. */
  bindAnalytics(analytics: Analytics): this {
    analytics.grantQuery(this);
    this.addEnvironment(envNames.athenaWorkgroup, analytics.workgroupName);
    this.addEnvironment(envNames.athenaDatabase, analytics.databaseName);
    // The compaction watermark (compacted/_watermark.json): queries read raw partitions only past it.
    this.addEnvironment(envNames.lakeBucket, analytics.lakeBucket.bucketName);
    return this;
  }
}
