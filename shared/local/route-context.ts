import { AsyncLocalStorage } from 'node:async_hooks';
import type { RouteDef } from '@shared/routes/route-types';

/**
 * The function (route or consumer row) whose invocation is running, locally: the local stack runs
 * each invocation, and each consumer stand-in's work, inside its row's context, and the local
 * grant guards (grant-guard.ts) refuse what that row's IAM grants would refuse.
 */
export const routeContext = new AsyncLocalStorage<RouteDef>();
