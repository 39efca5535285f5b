import { analyticsEventsQuerySchema, analyticsQuerySchema } from '@shared/analytics/query/analytics-schemas';
import type {
  AnalyticsData,
  DeepLinkAppAnalyticsData,
  RawAnalyticsEvent,
} from '@shared/analytics/query/analytics-types';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';
import type { V1Route } from './typed-route';
import type { RouteDef } from './route-types';

/** Analytics. readWrite: Athena answers are cached in the table; the export signs cursors. */
export const analyticsLinkRoute: V1Route<
  { path: typeof linkIdPathSchema; query: typeof analyticsQuerySchema },
  AnalyticsData
> = {
  request: { path: linkIdPathSchema, query: analyticsQuerySchema },
  handler: 'analytics-link',
  method: 'GET',
  path: '/v1/analytics/links/{linkId}',
  credential: 'server',
  scope: 'analytics:read',
  api: 'service',
  grants: { table: 'readWrite', reads: ['LINK#'], writes: ['ANALYTICS#'], analytics: true },
  summary: 'Analytics of one link (short link or deep link)',
};

export const analyticsDeepLinkAppRoute: V1Route<{ query: typeof analyticsQuerySchema }, DeepLinkAppAnalyticsData> = {
  request: { query: analyticsQuerySchema },
  handler: 'analytics-deep-link-app',
  method: 'GET',
  path: '/v1/analytics/deep-link-app',
  credential: 'app',
  api: 'service',
  grants: { table: 'readWrite', writes: ['ANALYTICS#'], analytics: true },
  summary: 'Analytics of the deep-link app of the app key',
};

export const analyticsEventsRoute: V1Route<{ query: typeof analyticsEventsQuerySchema }, RawAnalyticsEvent[]> = {
  request: { query: analyticsEventsQuerySchema },
  handler: 'analytics-events',
  method: 'GET',
  path: '/v1/analytics/events',
  credential: 'server',
  scope: 'analytics:read',
  api: 'service',
  grants: { table: 'readWrite', reads: ['LINK#', 'SECRET'], writes: ['ANALYTICS#'], analytics: true },
  summary: 'Raw event export, newest first, cursor-paged',
};

export const analyticsRoutes: RouteDef[] = [analyticsLinkRoute, analyticsDeepLinkAppRoute, analyticsEventsRoute];
