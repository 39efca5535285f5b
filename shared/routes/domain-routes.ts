import type { RouteDef } from './route-types';

export const domainRoutes: RouteDef[] = [
  {
    handler: 'domains-list',
    method: 'GET',
    path: '/v1/domains',
    credential: 'server',
    scope: 'domains:read',
    api: 'service',
    grants: { table: 'read', reads: ['SECRET'] },
    summary: 'List the domains of the workspace',
  },
  {
    handler: 'domains-get',
    method: 'GET',
    path: '/v1/domains/{domainId}',
    credential: 'server',
    scope: 'domains:read',
    api: 'service',
    grants: { table: 'read' },
    summary: 'Get a domain',
  },
];
