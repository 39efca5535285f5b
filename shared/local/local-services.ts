/**
 * The local services: what the local stack, the admin CLI pointed at it and the test environment
 * provide (shared/runtime/services.ts) in place of the production ones, which the Lambda entry
 * points build from their configuration and which never import anything here.
 */
import type { AnalyticsEngine } from '@shared/analytics/query/analytics-engine';
import { engineFromConfig } from '@shared/analytics/query/analytics-backend';
import { createDuckDbEngine } from '@shared/analytics/query/duckdb-engine';
import { getConfig, type Config } from '@shared/config/config';
import { productionEventSink } from '@shared/events/event-sink';
import type { EventSink } from '@shared/events/event-sink-interface';
import { createLocalEventStream } from '@shared/events/local-event-stream';
import { lazy, type ServiceOverrides } from '@shared/runtime/services';

/** The event stream's stand-in over LOCAL_LAKE_DIR; the real stream when EVENTS_STREAM_NAME names one. */
export const localEventSink = (config: Pick<Config, 'EVENTS_STREAM_NAME' | 'LOCAL_LAKE_DIR'>): EventSink => {
  if (config.EVENTS_STREAM_NAME) return productionEventSink();
  if (config.LOCAL_LAKE_DIR) return createLocalEventStream(config.LOCAL_LAKE_DIR);
  throw new Error('No event sink configured (EVENTS_STREAM_NAME or LOCAL_LAKE_DIR)');
};

/**
 * DuckDB over LOCAL_LAKE_DIR; Athena when ATHENA_WORKGROUP and ATHENA_DATABASE are set; neither
 * is 503 analytics_unavailable.
 */
export const localAnalyticsEngine = (
  config: Pick<Config, 'ATHENA_WORKGROUP' | 'ATHENA_DATABASE' | 'LAKE_BUCKET' | 'LOCAL_LAKE_DIR' | 'AWS_REGION'>,
): AnalyticsEngine => {
  if (!(config.ATHENA_WORKGROUP && config.ATHENA_DATABASE) && config.LOCAL_LAKE_DIR) {
    return createDuckDbEngine(config.LOCAL_LAKE_DIR);
  }
  return engineFromConfig(config);
};

/**
 * The local services for `provideServices`, each built on first use from the configuration of that
 * moment (LOCAL_LAKE_DIR; the engine again whenever the configuration is read again); `eventSink`
 * replaces the sink's builder (the local stack's guarded stream).
 */
export const localServices = (options: { eventSink?: () => EventSink } = {}): ServiceOverrides => ({
  eventSink: lazy(options.eventSink ?? (() => localEventSink(getConfig()))),
  analyticsEngine: lazy(() => localAnalyticsEngine(getConfig())),
});
