import { analyticsRoutes } from './analytics-routes';
import { clientRoutes } from './client-routes';
import { deepLinkRoutes } from './deep-link-routes';
import { domainRoutes } from './domain-routes';
import { edgeRoutes } from './edge-routes';
import { legacyRoutes } from './legacy-routes';
import { linkRoutes } from './link-routes';
import { metaRoutes } from './meta-routes';
import type { RouteDef } from './route-types';

/**
 * The one route table. The CDK stack, the local server and the OpenAPI document all read it;
 * nothing else lists routes. Each feature keeps its rows in its own file.
 */
// Marked pure (array spread is not, for esbuild) so a Lambda bundle, which reads only its own row
// (own-route.ts), drops the table.
export const routeTable: readonly RouteDef[] = /* @__PURE__ */ (() => [
  ...linkRoutes,
  ...deepLinkRoutes,
  ...domainRoutes,
  ...clientRoutes,
  ...analyticsRoutes,
  ...legacyRoutes,
  ...metaRoutes,
  ...edgeRoutes,
])();

export const routeByHandler = (handler: string): RouteDef => {
  const route = routeTable.find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
};
