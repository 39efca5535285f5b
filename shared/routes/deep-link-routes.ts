import type { LinkResource } from '@shared/links/link-view';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';
import { createDeepLinkBodySchema, patchLinkBodySchema } from '@shared/schemas/link-schemas';
import { listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { qrQuerySchema } from '@shared/schemas/qr-schemas';
import type { V1Route } from './typed-route';
import { LINK_LIST_INDEX, type RouteDef } from './route-types';

export const deepLinksListRoute: V1Route<{ query: typeof listLinksQuerySchema }, LinkResource[]> = {
  request: { query: listLinksQuerySchema },
  handler: 'deep-links-list',
  method: 'GET',
  path: '/v1/deep-links',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#', 'SECRET'], indexes: LINK_LIST_INDEX },
  summary: 'List deep links',
};

export const deepLinksCreateRoute: V1Route<{ body: typeof createDeepLinkBodySchema }, LinkResource> = {
  request: { body: createDeepLinkBodySchema },
  idempotent: true,
  handler: 'deep-links-create',
  method: 'POST',
  path: '/v1/deep-links',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: {
    table: 'readWrite',
    reads: ['HOST#'],
    writes: ['LINK#', 'SLUG#', 'WS#', 'IDEM#', 'AUDIT#', 'CONVERSIONS#'],
  },
  summary: 'Create a deep link for a deep-link app',
};

export const deepLinksGetRoute: V1Route<{ path: typeof linkIdPathSchema }, LinkResource> = {
  request: { path: linkIdPathSchema },
  handler: 'deep-links-get',
  method: 'GET',
  path: '/v1/deep-links/{linkId}',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#'] },
  summary: 'Get a deep link',
};

export const deepLinksPatchRoute: V1Route<
  { path: typeof linkIdPathSchema; body: typeof patchLinkBodySchema },
  LinkResource
> = {
  request: { path: linkIdPathSchema, body: patchLinkBodySchema },
  handler: 'deep-links-patch',
  method: 'PATCH',
  path: '/v1/deep-links/{linkId}',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: { table: 'readWrite', reads: ['HOST#'], writes: ['LINK#', 'SLUG#', 'WS#', 'AUDIT#', 'CONVERSIONS#'] },
  summary: 'Update a deep link (null clears, absent leaves; archived false restores)',
};

export const deepLinksArchiveRoute: V1Route<{ path: typeof linkIdPathSchema }, LinkResource> = {
  request: { path: linkIdPathSchema },
  handler: 'deep-links-archive',
  method: 'DELETE',
  path: '/v1/deep-links/{linkId}',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'AUDIT#'] },
  summary: 'Archive a deep link (the app configuration is kept)',
};

export const deepLinksQrRoute: V1Route<{ path: typeof linkIdPathSchema; query: typeof qrQuerySchema }, never> = {
  request: { path: linkIdPathSchema, query: qrQuerySchema },
  handler: 'deep-links-qr',
  method: 'GET',
  path: '/v1/deep-links/{linkId}/qr',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#'] },
  summary: "The QR code of a deep link's shortLink (SVG or PNG)",
};

export const deepLinkRoutes: RouteDef[] = [
  deepLinksListRoute,
  deepLinksCreateRoute,
  deepLinksGetRoute,
  deepLinksPatchRoute,
  deepLinksArchiveRoute,
  deepLinksQrRoute,
];
