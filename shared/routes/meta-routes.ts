import type { RouteDef } from './route-types';

export const metaRoutes: RouteDef[] = [
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
