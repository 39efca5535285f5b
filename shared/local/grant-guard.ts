import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventSink } from '@shared/events/event-sink-interface';
import type { FunctionSpec } from '@shared/routes/function-spec';
import { handlerGrants } from '@shared/routes/route-table';
import { functionTableAccess, refusedAccess } from '@shared/routes/table-access';
import { routeContext } from './route-context';

/**
 * IAM, locally. Deployed, each Lambda may do only what its function spec grants (a route's
 * rows, or a consumer's spec: table none/read/readWrite, the key prefixes it reads and writes,
 * the index partitions it queries, events). Locally every handler shares one process and one
 * client, so the local server runs each invocation inside its route's context and these guards
 * refuse what IAM would refuse, with the error AWS gives. A handler that writes on a read-only
 * route fails in the tests, not after `cdk deploy`. The consumers' stand-ins (the click counter
 * consumer of the local event stream, the compaction's settle) run inside their own specs'
 * context (shared/routes/consumer-specs.ts), so the guard holds them to their grants too.
 */
export { routeContext };

const accessDenied = (route: FunctionSpec, action: string) =>
  Object.assign(
    new Error(
      `User is not authorized to perform: ${action} (route ${route.handler} grants ${JSON.stringify(route.grants)})`,
    ),
    {
      name: 'AccessDeniedException',
      $fault: 'client',
    },
  );

/**
 * Why IAM would refuse this call for the function, or null when it is granted: the statements
 * `functionTableAccess` computes from its spec, the same ones the CDK stack grants (partition-key
 * prefixes of reads and writes, index partitions, the key's last use).
 */
export const deniedAction = (route: FunctionSpec, command: string, input: Record<string, unknown>): string | null =>
  refusedAccess(functionTableAccess(route), command, input);

const guarded = new WeakSet<object>();

export const installTableGrantGuard = (client: DynamoDBDocumentClient): void => {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const route = routeContext.getStore();
      if (route) {
        const denied = deniedAction(route, String(context.commandName), args.input as Record<string, unknown>);
        if (denied) throw accessDenied(route, denied);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localGrantGuard' },
  );
};

/** The event sink as a function without `grants.events` (on none of its rows) sees it deployed: not there. */
export const guardEventSink = <T extends EventSink>(sink: T): T => ({
  ...sink,
  send: async (events: Parameters<EventSink['send']>[0], options?: Parameters<EventSink['send']>[1]) => {
    const route = routeContext.getStore();
    if (route && !handlerGrants(route).events) throw accessDenied(route, 'kinesis:PutRecords');
    // What consumes the stream (the local stand-ins of the counter consumer, the lake, ...) is
    // another function deployed, with its own grants: it leaves the route's context here, and
    // the counter consumer's stand-in enters its own row's (local-event-stream.ts).
    return routeContext.exit(() => sink.send(events, options));
  },
});
