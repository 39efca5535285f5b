import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, type HttpRouteIntegration } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { routeTable } from '@shared/routes/route-table';
import type { ApiName, RouteDef } from '@shared/routes/route-types';
import { Analytics } from './analytics';
import { EventLake } from './event-lake';
import { LinkTable } from './link-table';
import { ServiceFunction } from './service-function';

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());

/** Composes the service: the table, the two HTTP APIs, and one function per route-table row. */
export class LinkServiceStack extends Stack {
  readonly table: LinkTable;
  readonly eventLake: EventLake;
  readonly analytics: Analytics;
  readonly serviceApi: HttpApi;
  readonly edgeApi: HttpApi;
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.table = new LinkTable(this, 'Table');
    this.eventLake = new EventLake(this, 'EventLake');
    this.analytics = new Analytics(this, 'Analytics', { lakeBucket: this.eventLake.bucket });

    const integrations = new Map<string, HttpRouteIntegration>();
    const integrationFor = (route: RouteDef) => {
      let integration = integrations.get(route.handler);
      if (!integration) {
        const fn = new ServiceFunction(this, pascal(route.handler), { route }).bindTable(this.table, route.grants.table);
        if (route.grants.analytics) fn.bindAnalytics(this.analytics);
        this.functions.set(route.handler, fn);
        integration = new HttpLambdaIntegration(`${pascal(route.handler)}Integration`, fn);
        integrations.set(route.handler, integration);
      }
      return integration;
    };

    const apiFor = (api: ApiName, name: string) => {
      const defaultRoute = routeTable.find((r) => r.api === api && r.path === '$default');
      return new HttpApi(this, name, {
        apiName: `${id}-${api}`,
        defaultIntegration: defaultRoute ? integrationFor(defaultRoute) : undefined,
      });
    };
    this.serviceApi = apiFor('service', 'ServiceApi');
    this.edgeApi = apiFor('edge', 'EdgeApi');

    for (const route of routeTable) {
      if (route.path === '$default') continue;
      const api = route.api === 'service' ? this.serviceApi : this.edgeApi;
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route),
      });
    }

    new CfnOutput(this, 'BaseUrl', { value: this.serviceApi.apiEndpoint });
    new CfnOutput(this, 'EdgeUrl', { value: this.edgeApi.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}
