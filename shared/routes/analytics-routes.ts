import type { RouteDef } from './route-types';

/** Analytics. readWrite: Athena answers are cached in the table; the export signs cursors. */
export const analyticsRoutes: RouteDef[] = [
  {
    handler: 'analytics-link',
    method: 'GET',
    path: '/v1/analytics/links/{linkId}',
    credential: 'server',
    scope: 'analytics:read',
    api: 'service',
    grants: { table: 'readWrite', reads: ['LINK#'], writes: ['ANALYTICS#'], analytics: true },
    summary: 'Analytics of one link (short link or deep link)',
  },
  {
    handler: 'analytics-deep-link-app',
    method: 'GET',
    path: '/v1/analytics/deep-link-app',
    credential: 'app',
    api: 'service',
    grants: { table: 'readWrite', writes: ['ANALYTICS#'], analytics: true },
    summary: 'Analytics of the deep-link app of the app key',
  },
  {
    handler: 'analytics-events',
    method: 'GET',
    path: '/v1/analytics/events',
    credential: 'server',
    scope: 'analytics:read',
    api: 'service',
    grants: { table: 'readWrite', reads: ['LINK#', 'SECRET'], writes: ['ANALYTICS#'], analytics: true },
    summary: 'Raw event export, newest first, cursor-paged',
  },
];
