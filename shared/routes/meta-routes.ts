import type { RouteDef } from './route-types';

export const metaRoutes: RouteDef[] = [
  {
    handler: 'openapi-get',
    method: 'GET',
    path: '/v1/openapi.json',
    credential: 'none',
    api: 'service',
    grants: { table: 'none' },
    summary: 'The OpenAPI 3.1 document of this API (no key needed)',
  },
  {
    handler: 'not-found',
    method: 'ANY',
    path: '$default',
    credential: 'none',
    api: 'service',
    grants: { table: 'none' },
    summary: 'Any other path: 404 not_found in the v1 envelope',
  },
];
