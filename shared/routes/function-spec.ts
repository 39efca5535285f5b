import type { RouteDef, RouteGrants } from './route-types';

/** What starts a function that is not an HTTP route. */
export type ConsumerTrigger = 'stream' | 'queue' | 'schedule';

/**
 * One Lambda function as the stack, the local stack and the tests see it: its entry
 * (`lambdas/{handler}.ts`) and its access (`grants`: the table's key prefixes it reads and
 * writes, the index partitions it queries, whether it sends events or runs analytics). A route
 * (route-types.ts `RouteDef`) is one; a consumer (`ConsumerSpec`) is one. The one function that
 * turns access into IAM (`functionTableAccess`, table-access.ts) takes any of them.
 */
export interface FunctionSpec {
  /** Lambda name and handler entry: `lambdas/{handler}.ts`. */
  handler: string;
  grants: RouteGrants;
  summary: string;
  /** Heavier work than one request's: more memory (CPU) and time than the defaults. */
  lambda?: { memorySize?: number; timeoutSeconds?: number };
}

/** A function started by the event stream, a queue or a schedule: no method, path or credential. */
export interface ConsumerSpec extends FunctionSpec {
  trigger: ConsumerTrigger;
}

/** Whether a function is an HTTP route (it has a method; a consumer has a trigger instead). */
export const isRoute = (fn: FunctionSpec): fn is RouteDef => 'method' in fn;
