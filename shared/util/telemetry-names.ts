/**
 * Names shared by the functions (Powertools Logger and Metrics) and the stack (alarms,
 * dashboard); no side effects, so the CDK app can import them.
 */

/** The `service` field of every log line and the `service` dimension of every metric. */
export const serviceName = 'link-service';

/** The CloudWatch namespace of every metric the service emits (EMF through Powertools Metrics). */
export const metricsNamespace = 'LinkService';

/** Metric names: the dashboard (lib/service-dashboard.ts) and the alarms read them. */
export const metricNames = {
  /** Human clicks counted (edge and client click API). */
  clicks: 'Clicks',
  /** Bot clicks counted (crawlers, unfurlers, HEAD, SDK user agents). */
  botClicks: 'BotClicks',
  /** Edge answers by `Outcome` (redirect, launch_view, preview, password, not_found, expired). */
  redirects: 'Redirects',
  /** AWS calls refused for throttling, by `Service` (DynamoDB, Kinesis). */
  throttles: 'Throttles',
  /** Events the sink gave up on after retries, by `StreamName` (lost events; also in the error log). */
  undeliveredEvents: 'UndeliveredEvents',
  /** Edge clicks whose recording failed (logged with everything needed to replay them). */
  clicksNotRecorded: 'ClicksNotRecorded',
  /** Lake compaction: seconds from a run to the start of the oldest hour still uncompacted (the backlog alarm). */
  compactionBacklog: 'LakeCompactionBacklogSeconds',
  /** Requests let through unlimited because the rate limiter's counter could not be written. */
  rateLimiterFailedOpen: 'RateLimiterFailedOpen',
} as const;

/** The edge outcomes the `Redirects` metric is split by (shared/edge/edge-outcome.ts). */
export const edgeOutcomes = ['redirect', 'launch_view', 'preview', 'password', 'not_found', 'expired'] as const;
