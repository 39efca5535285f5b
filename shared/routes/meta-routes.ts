import type { NoRequest, V1Route } from './typed-route';
import type { RouteDef } from './route-types';

export const openapiGetRoute: RouteDef = {
  handler: 'openapi-get',
  method: 'GET',
  path: '/v1/openapi.json',
  credential: 'none',
  api: 'service',
  grants: { table: 'none' },
  summary: 'The OpenAPI 3.1 document of this API (no key needed)',
};

export const notFoundRoute: V1Route<NoRequest, never> = {
  request: {},
  handler: 'not-found',
  method: 'ANY',
  path: '$default',
  credential: 'none',
  api: 'service',
  grants: { table: 'none' },
  summary: 'Any other path: 404 not_found in the v1 envelope',
};

export const metaRoutes: RouteDef[] = [openapiGetRoute, notFoundRoute];
