import { AsyncLocalStorage } from 'node:async_hooks';
import type { FunctionSpec } from '@shared/routes/function-spec';

/**
 * The function (route or consumer) whose invocation is running, locally: the local stack runs
 * each invocation, and each consumer stand-in's work, inside its spec's context, and the local
 * grant guards (grant-guard.ts) refuse what that function's IAM grants would refuse.
 */
export const routeContext = new AsyncLocalStorage<FunctionSpec>();
