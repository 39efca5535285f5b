import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination, type HttpRouteIntegration } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface ServiceHttpApiProps {
  apiName: string;
  defaultIntegration?: HttpRouteIntegration;
  /** Steady-state requests per second across the stage, and the burst above it. */
  throttle: { rateLimit: number; burstLimit: number };
}

/**
 * An HTTP API with this project's defaults: a `$default` stage with throttling and JSON access
 * logs (request id, route, status, latency; no headers, so no keys) kept for 30 days.
 * Authorization is not API Gateway's: every route's Lambda checks the key itself (route table).
 */
export class ServiceHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: ServiceHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: props.apiName,
      createDefaultStage: false,
      defaultIntegration: props.defaultIntegration,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            requestTime: '$context.requestTimeEpoch',
            ip: '$context.identity.sourceIp',
          }),
        ),
      },
    });
  }

  get url(): string {
    return this.api.apiEndpoint;
  }
}
