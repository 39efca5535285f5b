import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventSink } from '@shared/events/event-sink';
import type { RouteDef } from '@shared/routes/route-types';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';

/**
 * IAM, locally. Deployed, each Lambda may do only what its route-table row grants (table
 * none/read/readWrite, events). Locally every handler shares one process and one client, so
 * the local server runs each invocation inside its route's context and these guards refuse
 * what IAM would refuse, with the error AWS gives. A handler that writes on a read-only route
 * fails in the tests, not after `cdk deploy`.
 */
export const routeContext = new AsyncLocalStorage<RouteDef>();

const READ_COMMANDS = new Set([
  'GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand', 'DescribeTableCommand',
]);

const accessDenied = (route: RouteDef, action: string) =>
  Object.assign(new Error(`User is not authorized to perform: ${action} (route ${route.handler} grants ${JSON.stringify(route.grants)})`), {
    name: 'AccessDeniedException',
    $fault: 'client',
  });

/** What `bindRateLimitCounters` grants a read route of a limited credential: UpdateItem on `RATE#` partitions only. */
const isRateCounterUpdate = (route: RouteDef, input: unknown): boolean => {
  if (!rateLimitKindOf(route.credential)) return false;
  const pk = (input as { Key?: { pk?: unknown } }).Key?.pk;
  const value = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith('RATE#');
};

const guarded = new WeakSet<object>();

export const installTableGrantGuard = (client: DynamoDBDocumentClient): void => {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const route = routeContext.getStore();
      const command = String(context.commandName);
      if (route) {
        const allowed =
          route.grants.table === 'readWrite' ||
          (route.grants.table === 'read' && (READ_COMMANDS.has(command) || ((command === 'UpdateItemCommand' || command === 'UpdateCommand') && isRateCounterUpdate(route, args.input))));
        if (!allowed) throw accessDenied(route, `dynamodb:${command.replace(/Command$/, '')}`);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localGrantGuard' },
  );
};

/** The event sink as a route without `grants.events` sees it deployed: not there. */
export const guardEventSink = (sink: EventSink): EventSink => ({
  send: async (events) => {
    const route = routeContext.getStore();
    if (route && !route.grants.events) throw accessDenied(route, 'firehose:PutRecordBatch');
    return sink.send(events);
  },
});
