import type { RouteDef } from './route-types';

export const linkRoutes: RouteDef[] = [
  {
    handler: 'links-list',
    method: 'GET',
    path: '/v1/links',
    credential: 'server',
    api: 'service',
    grants: { table: 'read', indexes: true },
    summary: 'List short links',
  },
  {
    handler: 'links-create',
    method: 'POST',
    path: '/v1/links',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'WS#', 'IDEM#'] },
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
  {
    handler: 'links-patch',
    method: 'PATCH',
    path: '/v1/links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'WS#'] },
    summary: 'Update a short link (null clears, absent leaves; archived false restores)',
  },
  {
    handler: 'links-archive',
    method: 'DELETE',
    path: '/v1/links/{linkId}',
    credential: 'server',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#'] },
    summary: 'Archive a short link',
  },
];
