import type { RouteDef } from './route-types';

export const deepLinkRoutes: RouteDef[] = [
  {
    handler: 'deep-links-list',
    method: 'GET',
    path: '/v1/deep-links',
    credential: 'server',
    api: 'service',
    grants: { table: 'read', indexes: true },
    summary: 'List deep links',
  },
  {
    handler: 'deep-links-create',
    method: 'POST',
    path: '/v1/deep-links',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'WS#', 'IDEM#'] },
    summary: 'Create a deep link for a deep-link app',
  },
  {
    handler: 'deep-links-get',
    method: 'GET',
    path: '/v1/deep-links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'read' },
    summary: 'Get a deep link',
  },
  {
    handler: 'deep-links-patch',
    method: 'PATCH',
    path: '/v1/deep-links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'WS#'] },
    summary: 'Update a deep link (null clears, absent leaves; archived false restores)',
  },
  {
    handler: 'deep-links-archive',
    method: 'DELETE',
    path: '/v1/deep-links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#'] },
    summary: 'Archive a deep link (the app configuration is kept)',
  },
];
