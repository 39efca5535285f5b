import { analyticsRoutes } from './analytics-routes';
import { auditRoutes } from './audit-routes';
import { clientRoutes } from './client-routes';
import { deepLinkRoutes } from './deep-link-routes';
import { domainRoutes } from './domain-routes';
import { edgeRoutes } from './edge-routes';
import { legacyRoutes } from './legacy-routes';
import { linkRoutes } from './link-routes';
import { metaRoutes } from './meta-routes';
import type { RouteDef, RouteGrants } from './route-types';
import { sessionRoutes } from './session-routes';

/**
 * The one route table. The CDK stack, the local server and the OpenAPI document all read it;
 * nothing else lists routes. Each feature keeps its rows in its own file.
 */
// Marked pure (array spread is not, for esbuild) so a Lambda bundle, which imports only its own
// route object (typed-route.ts), drops the table.
export const routeTable: readonly RouteDef[] = /* @__PURE__ */ (() => [
  ...linkRoutes,
  ...deepLinkRoutes,
  ...domainRoutes,
  ...clientRoutes,
  ...analyticsRoutes,
  ...auditRoutes,
  ...sessionRoutes,
  ...legacyRoutes,
  ...metaRoutes,
  ...edgeRoutes,
])();

export const routeByHandler = (handler: string): RouteDef => {
  const route = routeTable.find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
};

/**
 * One Lambda per handler (edge-links answers several rows), so a function's grants are the union
 * of its rows': the strongest table access, every read and written prefix and index partition, and events and
 * analytics when any row needs them. The CDK stack grants this; the local grant guard enforces it.
 * A route outside the table (tests) keeps its own grants.
 */
export const handlerGrants = (route: Pick<RouteDef, 'handler' | 'grants'>): RouteGrants => {
  const rows = routeTable.filter((r) => r.handler === route.handler);
  if (rows.length === 0) return route.grants;
  const table = rows.some((r) => r.grants.table === 'readWrite')
    ? 'readWrite'
    : rows.some((r) => r.grants.table === 'read')
      ? 'read'
      : 'none';
  return {
    table,
    writes: [...new Set(rows.flatMap((r) => r.grants.writes ?? []))],
    reads: [...new Set(rows.flatMap((r) => r.grants.reads ?? []))],
    indexes: [...new Set(rows.flatMap((r) => r.grants.indexes ?? []))],
    // Narrowed only when every row narrows (to what any of them does).
    ...(rows.every((r) => r.grants.actions)
      ? { actions: [...new Set(rows.flatMap((r) => r.grants.actions ?? []))] }
      : {}),
    ...(rows.length === 1 && rows[0]?.grants.attributeUpdates
      ? { attributeUpdates: rows[0].grants.attributeUpdates }
      : {}),
    events: rows.some((r) => r.grants.events === true),
    analytics: rows.some((r) => r.grants.analytics === true),
  };
};
