import type { RouteDef } from './route-types';

export const deepLinkRoutes: RouteDef[] = [];
