import { CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { HttpMethod, type HttpApi, type HttpRouteIntegration } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { routeTable } from '@shared/routes/route-table';
import type { ApiName, RouteDef } from '@shared/routes/route-types';
import { Analytics } from './analytics';
import { capacityFromContext, checkReservations, CLICK_PATH_HANDLERS, type CapacitySettings } from './capacity';
import { EventLake } from './event-lake';
import { EventPipeline } from './event-pipeline';
import { LinkTable } from './link-table';
import { OutboundEvents } from './outbound-events';
import { ServiceAlarms } from './service-alarms';
import { ServiceFunction } from './service-function';
import { ServiceHttpApi, type ServiceHttpApiProps } from './service-http-api';

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());

/** Composes the service: the table, the two HTTP APIs, and one function per route-table row. */
export class LinkServiceStack extends Stack {
  readonly table: LinkTable;
  readonly eventLake: EventLake;
  readonly alarms: ServiceAlarms;
  readonly eventPipeline: EventPipeline;
  readonly analytics: Analytics;
  readonly outbound: OutboundEvents;
  readonly serviceApi: HttpApi;
  readonly edgeApi: HttpApi;
  readonly functions = new Map<string, ServiceFunction>();
  readonly capacity: CapacitySettings;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.capacity = capacityFromContext(this.node);
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
    this.eventPipeline = new EventPipeline(this, 'EventPipeline', { bucket: this.eventLake.bucket });
    this.alarms.watchEventStream(this.eventPipeline.stream.ref);
    this.analytics = new Analytics(this, 'Analytics', { lakeBucket: this.eventLake.bucket, accessLogsBucket: this.eventLake.accessLogs });
    this.outbound = new OutboundEvents(this, 'Outbound', { table: this.table, alarms: this.alarms });

    const integrations = new Map<string, HttpRouteIntegration>();
    const integrationFor = (route: RouteDef) => {
      let integration = integrations.get(route.handler);
      if (!integration) {
        const fn = new ServiceFunction(this, pascal(route.handler), { route, reservedConcurrentExecutions: reservationOf(route) }).bindTable(
          this.table,
          route.grants,
        );
        if (route.grants.events) fn.bindEvents(this.eventPipeline.stream);
        if (route.grants.analytics) fn.bindAnalytics(this.analytics);
        this.functions.set(route.handler, fn);
        this.alarms.watchFunction(pascal(route.handler), fn);
        integration = new HttpLambdaIntegration(`${pascal(route.handler)}Integration`, fn);
        integrations.set(route.handler, integration);
      }
      return integration;
    };

    const apiFor = (api: ApiName, name: string, throttle: ServiceHttpApiProps['throttle']) => {
      const defaultRoute = routeTable.find((r) => r.api === api && r.path === '$default');
      return new ServiceHttpApi(this, name, {
        apiName: `${id}-${api}`,
        defaultIntegration: defaultRoute ? integrationFor(defaultRoute) : undefined,
        throttle,
      }).api;
    };
    this.serviceApi = apiFor('service', 'ServiceApi', this.capacity.serviceApi);
    this.edgeApi = apiFor('edge', 'EdgeApi', this.capacity.edgeApi);

    for (const route of routeTable) {
      if (route.path === '$default') continue;
      const api = route.api === 'service' ? this.serviceApi : this.edgeApi;
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route),
      });
    }

    checkReservations(this.capacity, [...this.functions.values()].reduce((sum, fn) => sum + (fn.reservedConcurrency ?? 0), 0));

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Authorization is the route Lambda's own: every route checks its key kind from the route table (SHA-256 lookup, 401/403 in the v1 envelope); public routes (edge, OpenAPI) are public by design.",
    });

    new CfnOutput(this, 'BaseUrl', { value: this.serviceApi.apiEndpoint });
    new CfnOutput(this, 'EdgeUrl', { value: this.edgeApi.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'EventBusName', { value: this.outbound.bus.eventBusName });
  }
}
