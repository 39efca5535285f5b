import { routeTable } from './route-table';
import type { RouteDef } from './route-types';

/** What a handler reads of its own row at run time. */
export type OwnRoute = Pick<RouteDef, 'handler' | 'method' | 'credential' | 'scope'>;

/*
 * Set by the bundler (lib/bundle-settings.ts `bundleDefinesFor`) from the row of the handler
 * being bundled; undeclared under tsx and vitest, which search the whole table.
 */
declare const __ROUTE_HANDLER__: string;
declare const __ROUTE_METHOD__: RouteDef['method'];
declare const __ROUTE_CREDENTIAL__: RouteDef['credential'];
/** `null` for a route without a scope (only server-key routes have one). */
declare const __ROUTE_SCOPE__: NonNullable<RouteDef['scope']> | null;

/**
 * The route-table row of a handler. A Lambda bundle carries only its own row's fields, inlined at
 * build time from the same table, so the whole table (about 6.5 KiB of rows and summaries) stays
 * out of every bundle (docs/benchmarks.md); everywhere else the table is searched.
 */
export const ownRoute = (handler: string): OwnRoute => {
  const route: OwnRoute | undefined =
    typeof __ROUTE_HANDLER__ === 'string'
      ? {
          handler: __ROUTE_HANDLER__,
          method: __ROUTE_METHOD__,
          credential: __ROUTE_CREDENTIAL__,
          ...(__ROUTE_SCOPE__ === null ? {} : { scope: __ROUTE_SCOPE__ }),
        }
      : routeTable.find((r) => r.handler === handler);
  if (!route || route.handler !== handler) throw new Error(`No route for handler ${handler}`);
  return route;
};
