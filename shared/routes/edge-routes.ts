import type { RouteDef } from './route-types';

export const edgeRoutes: RouteDef[] = [];
