import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger';
import { metricNames, metricsNamespace, serviceName } from './telemetry-names';

export { edgeOutcomes, metricNames, metricsNamespace } from './telemetry-names';

/**
 * The one Powertools Metrics of a function: metrics added during a request are written as one
 * EMF line when it ends (`logMetrics` in shared/http/middleware/observability.ts), with the
 * request id as metadata; a request that adds none writes nothing.
 */
export const metrics = new Metrics({
  namespace: metricsNamespace,
  serviceName,
  // Powertools warns on every request that adds no metric; that would be one more log line per request.
  logger: {
    debug: (...args: unknown[]) => {
      logger.debug(String(args[0]), ...(args.slice(1) as []));
    },
    info: (...args: unknown[]) => {
      logger.info(String(args[0]), ...(args.slice(1) as []));
    },
    warn: (...args: unknown[]) => {
      if (!String(args[0]).startsWith('No application metrics to publish'))
        logger.warn(String(args[0]), ...(args.slice(1) as []));
    },
    error: (...args: unknown[]) => {
      logger.error(String(args[0]), ...(args.slice(1) as []));
    },
  },
});

/** Adds the request's id to the EMF line, so the one line a click writes names its request. */
export const tagMetricsRequest = (requestId: string, route: string | undefined): void => {
  metrics.addMetadata('requestId', requestId);
  if (route) metrics.addMetadata('route', route);
};

/** A metric with its own dimensions, written at once as its own EMF line (failure paths only). */
const emitNow = (name: string, value: number, dimensions: Record<string, string>): void => {
  const single = metrics.singleMetric();
  for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
  single.addMetric(name, MetricUnit.Count, value);
};

export const countUndeliveredEvents = (streamName: string, count: number): void => {
  emitNow(metricNames.undeliveredEvents, count, { StreamName: streamName });
};

export const countClickNotRecorded = (): void => {
  emitNow(metricNames.clicksNotRecorded, 1, {});
};

/** A request the rate limiter let through unlimited (its counter could not be written). */
export const countRateLimiterFailedOpen = (): void => {
  emitNow(metricNames.rateLimiterFailedOpen, 1, {});
};

const THROTTLING = /Throttl|TooManyRequests|RequestLimitExceeded|ProvisionedThroughputExceeded|SlowDown/;

export const countThrottle = (service: string): void => {
  emitNow(metricNames.throttles, 1, { Service: service });
};

/** Counts an AWS error that is a throttle (`Throttles`, by `Service`); returns whether it was one. */
export const countIfThrottled = (error: unknown, service: string): boolean => {
  const name = (error as { name?: string } | null)?.name ?? '';
  if (!THROTTLING.test(name)) return false;
  countThrottle(service);
  return true;
};
