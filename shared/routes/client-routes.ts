import type { RouteDef } from './route-types';

export const clientRoutes: RouteDef[] = [];
