import path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { envNames } from '@shared/config/config';
import { projectRoot } from '@shared/local/paths';
import { handlerEntry, type RouteDef } from '@shared/routes/route-types';
import type { Analytics } from './analytics';

export interface ServiceFunctionProps {
  route: RouteDef;
  memorySize?: number;
}

/**
 * One Lambda per route, with every default decided here: Node.js 22 on arm64, ESM bundle
 * minified with source maps, JSON logs with retention, short timeout. Access is granted only
 * through the bind* methods, which grant and set the environment together.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    super(scope, id, {
      entry: path.join(projectRoot, handlerEntry(props.route)),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      // Analytics waits for Athena (it gives up after 25 s); API Gateway's limit is 30 s.
      timeout: Duration.seconds(props.route.grants.analytics ? 29 : 10),
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        // Bundle the SDK too: pinned versions, and smaller cold starts than the runtime's copy.
        externalModules: [],
        mainFields: ['module', 'main'],
        tsconfig: path.join(projectRoot, 'tsconfig.json'),
        banner: "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);",
      },
    });
  }

  /** Grants exactly the table access the route table names, and sets TABLE_NAME. */
  bindTable(table: ITableV2, access: RouteDef['grants']['table']): this {
    if (access === 'none') return this;
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
    this.addEnvironment(envNames.tableName, table.tableName);
    return this;
  }

  /** Grants running analytics queries (Athena, Glue, lake read, results) and sets their env. */
  bindAnalytics(analytics: Analytics): this {
    analytics.grantQuery(this);
    this.addEnvironment(envNames.athenaWorkgroup, analytics.workgroupName);
    this.addEnvironment(envNames.athenaDatabase, analytics.databaseName);
    return this;
  }
}
