import type { RouteDef } from './route-types';

export const analyticsRoutes: RouteDef[] = [];
