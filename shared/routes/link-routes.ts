import type { RouteDef } from './route-types';

export const linkRoutes: RouteDef[] = [
  {
    handler: 'links-create',
    method: 'POST',
    path: '/v1/links',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite' },
    summary: 'Create a short link',
  },
  {
    handler: 'links-get',
    method: 'GET',
    path: '/v1/links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'read' },
    summary: 'Get a short link',
  },
];
