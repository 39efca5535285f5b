import { domainIdPathSchema } from '@shared/schemas/domain-schemas';
import { listDomainsQuerySchema } from '@shared/schemas/list-schemas';
import type { DomainResource } from '@shared/tenancy/domain-view';
import type { V1Route } from './typed-route';
import type { RouteDef } from './route-types';

export const domainsListRoute: V1Route<{ query: typeof listDomainsQuerySchema }, DomainResource[]> = {
  request: { query: listDomainsQuerySchema },
  handler: 'domains-list',
  method: 'GET',
  path: '/v1/domains',
  credential: 'server',
  scope: 'domains:read',
  api: 'service',
  grants: { table: 'read', reads: ['SECRET'] },
  summary: 'List the domains of the workspace',
};

export const domainsGetRoute: V1Route<{ path: typeof domainIdPathSchema }, DomainResource> = {
  request: { path: domainIdPathSchema },
  handler: 'domains-get',
  method: 'GET',
  path: '/v1/domains/{domainId}',
  credential: 'server',
  scope: 'domains:read',
  api: 'service',
  grants: { table: 'read' },
  summary: 'Get a domain',
};

export const domainRoutes: RouteDef[] = [domainsListRoute, domainsGetRoute];
