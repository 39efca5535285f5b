import type { RouteDef } from './route-types';

export const domainRoutes: RouteDef[] = [];
