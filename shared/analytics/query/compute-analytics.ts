import type { AnalyticsEngine, QueryScope } from './analytics-engine';
import type { LinkAnalyticsData, TopDeepLink } from './analytics-types';
import {
  aggregateQuery,
  recentEventsQuery,
  topLinksQuery,
  variantConversionsQuery,
  type AnalyticsScope,
} from './analytics-sql';
import type { AnalyticsQuery } from './analytics-schemas';
import { analyticsWindow } from './analytics-window';
import { lakeReadBounds } from './raw-read';
import {
  breakdownFrom,
  launchViewMetricsOf,
  recentEventFrom,
  summaryFrom,
  timeseriesFrom,
  topLinkFrom,
  withVariantConversions,
} from './analytics-rows';

export const RECENT_EVENTS_LIMIT = 20;
export const TOP_LINKS_LIMIT = 10;

export interface AnalyticsRequest {
  workspaceId: string;
  scope: AnalyticsScope;
  query: AnalyticsQuery;
  now: Date;
  /** The request's one deadline (analyticsDeadline()). */
  deadline?: number;
  /** Also count conversions per A/B-test variant (a third query: only for a link with variants). */
  variantConversions?: boolean;
}

const filterOf = async (engine: AnalyticsEngine, request: AnalyticsRequest) => {
  const window = analyticsWindow(request.query.range, request.now);
  // Raw partitions only past the compaction watermark, merged days from the daily files (raw-read.ts).
  const { rawFrom, mergedBefore } = await lakeReadBounds(engine, request.now);
  const filter = {
    workspaceId: request.workspaceId,
    scope: request.scope,
    window,
    traffic: request.query.traffic,
    rawFrom,
    mergedBefore,
  };
  const queryScope: QueryScope = {
    workspaceId: request.workspaceId,
    firstDay: window.firstDay,
    lastDay: window.lastDay,
    rawFrom,
    mergedBefore,
    deadline: request.deadline,
  };
  return { window, filter, queryScope };
};

/**
 * AnalyticsData of one scope (with the rule and variant breakdowns, which only a link's analytics
 * answers): two queries (aggregates in one scan, recent events), run together.
 */
export const computeAnalyticsData = async (
  engine: AnalyticsEngine,
  request: AnalyticsRequest,
): Promise<LinkAnalyticsData> => {
  const { window, filter, queryScope } = await filterOf(engine, request);
  const [aggregates, recent, conversions] = await Promise.all([
    engine.query(aggregateQuery({ ...filter, unit: window.unit }), queryScope),
    engine.query(recentEventsQuery(filter, RECENT_EVENTS_LIMIT), queryScope),
    request.variantConversions ? engine.query(variantConversionsQuery(filter), queryScope) : Promise.resolve(null),
  ]);
  const summary = summaryFrom(aggregates);
  return {
    summary,
    timeseries: timeseriesFrom(aggregates, window),
    recentEvents: recent.map(recentEventFrom),
    launchViewMetrics: launchViewMetricsOf(summary),
    customerEvents: breakdownFrom(aggregates, 'customerEvent'),
    deviceBreakdown: breakdownFrom(aggregates, 'device'),
    browserBreakdown: breakdownFrom(aggregates, 'browser'),
    osBreakdown: breakdownFrom(aggregates, 'os'),
    geoBreakdown: breakdownFrom(aggregates, 'geo'),
    referrerBreakdown: breakdownFrom(aggregates, 'referrer'),
    campaignBreakdown: breakdownFrom(aggregates, 'campaign'),
    destinationBreakdown: breakdownFrom(aggregates, 'destination'),
    ruleBreakdown: breakdownFrom(aggregates, 'rule'),
    variantBreakdown: conversions
      ? withVariantConversions(breakdownFrom(aggregates, 'variant'), conversions)
      : breakdownFrom(aggregates, 'variant'),
  };
};

/** The scope's links by human clicks (DeepLinkAppAnalyticsData.topLinks). */
export const computeTopLinks = async (engine: AnalyticsEngine, request: AnalyticsRequest): Promise<TopDeepLink[]> => {
  const { filter, queryScope } = await filterOf(engine, request);
  return (await engine.query(topLinksQuery(filter, TOP_LINKS_LIMIT), queryScope)).map(topLinkFrom);
};
