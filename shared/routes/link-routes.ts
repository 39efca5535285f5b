import type { BulkItemResult } from '@shared/links/bulk-create-links';
import type { LinkResource } from '@shared/links/link-view';
import { bulkCreateLinksBodySchema } from '@shared/schemas/bulk-schemas';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';
import { createLinkBodySchema, patchLinkBodySchema } from '@shared/schemas/link-schemas';
import { listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { qrQuerySchema } from '@shared/schemas/qr-schemas';
import type { V1Route } from './typed-route';
import { LINK_LIST_INDEX, type RouteDef } from './route-types';

export const linksListRoute: V1Route<{ query: typeof listLinksQuerySchema }, LinkResource[]> = {
  request: { query: listLinksQuerySchema },
  handler: 'links-list',
  method: 'GET',
  path: '/v1/links',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#', 'SECRET'], indexes: LINK_LIST_INDEX },
  summary: 'List short links',
};

export const linksCreateRoute: V1Route<{ body: typeof createLinkBodySchema }, LinkResource> = {
  request: { body: createLinkBodySchema },
  idempotent: true,
  handler: 'links-create',
  method: 'POST',
  path: '/v1/links',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: {
    table: 'readWrite',
    reads: ['HOST#'],
    writes: ['LINK#', 'SLUG#', 'WS#', 'IDEM#', 'AUDIT#', 'CONVERSIONS#'],
  },
  summary: 'Create a short link',
};

export const linksBulkCreateRoute: V1Route<{ body: typeof bulkCreateLinksBodySchema }, BulkItemResult[]> = {
  request: { body: bulkCreateLinksBodySchema },
  idempotent: true,
  handler: 'links-bulk-create',
  method: 'POST',
  path: '/v1/links/bulk',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: {
    table: 'readWrite',
    reads: ['HOST#'],
    writes: ['LINK#', 'SLUG#', 'WS#', 'IDEM#', 'AUDIT#', 'CONVERSIONS#'],
  },
  summary: 'Create 1 to 100 short links; one result per item, in order',
  // Up to 100 scrypt password hashes (~50 ms of CPU each): 1,769 MB is one full vCPU, and the
  // time limit is API Gateway's 30 s less a margin, not the 10 s of single-link routes.
  lambda: { memorySize: 1769, timeoutSeconds: 29 },
};

export const linksGetRoute: V1Route<{ path: typeof linkIdPathSchema }, LinkResource> = {
  request: { path: linkIdPathSchema },
  handler: 'links-get',
  method: 'GET',
  path: '/v1/links/{linkId}',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#'] },
  summary: 'Get a short link',
};

export const linksPatchRoute: V1Route<
  { path: typeof linkIdPathSchema; body: typeof patchLinkBodySchema },
  LinkResource
> = {
  request: { path: linkIdPathSchema, body: patchLinkBodySchema },
  handler: 'links-patch',
  method: 'PATCH',
  path: '/v1/links/{linkId}',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: { table: 'readWrite', reads: ['HOST#'], writes: ['LINK#', 'SLUG#', 'WS#', 'AUDIT#', 'CONVERSIONS#'] },
  summary: 'Update a short link (null clears, absent leaves; archived false restores)',
};

export const linksQrRoute: V1Route<{ path: typeof linkIdPathSchema; query: typeof qrQuerySchema }, never> = {
  request: { path: linkIdPathSchema, query: qrQuerySchema },
  handler: 'links-qr',
  method: 'GET',
  path: '/v1/links/{linkId}/qr',
  credential: 'server',
  scope: 'links:read',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#'] },
  summary: "The QR code of a short link's shortLink (SVG or PNG)",
};

export const linksArchiveRoute: V1Route<{ path: typeof linkIdPathSchema }, LinkResource> = {
  request: { path: linkIdPathSchema },
  handler: 'links-archive',
  method: 'DELETE',
  path: '/v1/links/{linkId}',
  credential: 'server',
  scope: 'links:write',
  api: 'service',
  grants: { table: 'readWrite', writes: ['LINK#', 'SLUG#', 'AUDIT#'] },
  summary: 'Archive a short link',
};

export const linkRoutes: RouteDef[] = [
  linksListRoute,
  linksCreateRoute,
  linksBulkCreateRoute,
  linksGetRoute,
  linksPatchRoute,
  linksQrRoute,
  linksArchiveRoute,
];
