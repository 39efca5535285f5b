import type { RouteDef } from './route-types';

export const legacyRoutes: RouteDef[] = [];
