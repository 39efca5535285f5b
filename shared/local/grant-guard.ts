import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LAST_USED_UPDATE } from '@shared/auth/last-used';
import type { EventSink } from '@shared/events/event-sink';
import { handlerGrants } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';

/**
 * IAM, locally. Deployed, each Lambda may do only what its route-table row grants (table
 * none/read/readWrite, the key prefixes it writes, whether it queries indexes, events). Locally every handler shares one process and one client, so
 * the local server runs each invocation inside its route's context and these guards refuse
 * what IAM would refuse, with the error AWS gives. A handler that writes on a read-only route
 * fails in the tests, not after `cdk deploy`.
 */
export const routeContext = new AsyncLocalStorage<RouteDef>();

/** What IAM grants a route (lib/service-function.ts bindTable): these reads, and writes under its key prefixes. */
const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);
const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

const accessDenied = (route: RouteDef, action: string) =>
  Object.assign(
    new Error(
      `User is not authorized to perform: ${action} (route ${route.handler} grants ${JSON.stringify(route.grants)})`,
    ),
    {
      name: 'AccessDeniedException',
      $fault: 'client',
    },
  );

/** What `bindRateLimitCounters` grants a read route of a limited credential: UpdateItem on `RATE#` partitions only. */
const isRateCounterUpdate = (route: RouteDef, input: unknown): boolean => {
  if (!rateLimitKindOf(route.credential)) return false;
  const pk = (input as { Key?: { pk?: unknown } }).Key?.pk;
  const value = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith('RATE#');
};

/** What `bindKeyLastUsed` grants a keyed route: UpdateItem of `lastUsedOn` on `APIKEY#` partitions only. */
const isKeyLastUsedUpdate = (route: RouteDef, input: Record<string, unknown>): boolean => {
  if (route.credential === 'none') return false;
  const pk = (input as { Key?: { pk?: unknown } }).Key?.pk;
  const value = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith('APIKEY#') && input.UpdateExpression === LAST_USED_UPDATE;
};

type Keyed = { Item?: Record<string, unknown>; Key?: Record<string, unknown> } | undefined;

/** The partition key value of a Put's item or an operation's key (document or wire shape). */
const partitionKeyOf = (op: Keyed): string => {
  const pk = (op?.Item ?? op?.Key)?.pk;
  return typeof pk === 'string' ? pk : ((pk as { S?: string } | undefined)?.S ?? '');
};

/** The partition keys a write command touches (each item of a transaction). */
const writtenPartitionKeys = (command: string, input: Record<string, unknown>): string[] => {
  if (command === 'BatchWriteItemCommand') {
    const requests = Object.values(
      (input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: Keyed; DeleteRequest?: Keyed }>>,
    ).flat();
    return requests.map((r) => partitionKeyOf(r.PutRequest ?? r.DeleteRequest));
  }
  if (command !== 'TransactWriteItemsCommand') return [partitionKeyOf(input)];
  const items = (input.TransactItems ?? []) as Array<Record<string, Keyed>>;
  return items.map((entry) => partitionKeyOf(entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck));
};

/** Why IAM would refuse this call for the route, or null when it is granted. */
export const deniedAction = (route: RouteDef, command: string, input: Record<string, unknown>): string | null => {
  const action = `dynamodb:${command.replace(/Command$/, '')}`;
  const grants = handlerGrants(route);
  // Rate-limit counters (bindRateLimitCounters / RATE# in the stack): UpdateItem on RATE# partitions for limited credentials.
  if ((command === 'UpdateItemCommand' || command === 'UpdateCommand') && isRateCounterUpdate(route, input))
    return null;
  if ((command === 'UpdateItemCommand' || command === 'UpdateCommand') && isKeyLastUsedUpdate(route, input))
    return null;
  if (grants.table === 'none') return action;
  if (READ_COMMANDS.has(command)) {
    const index = input.IndexName;
    return command === 'QueryCommand' && typeof index === 'string' && index !== '' && !grants.indexes
      ? `${action} on index ${index}`
      : null;
  }
  if (!WRITE_COMMANDS.has(command) || grants.table !== 'readWrite') return action;
  const prefixes = grants.writes ?? [];
  const outside = writtenPartitionKeys(command, input).find((pk) => !prefixes.some((prefix) => pk.startsWith(prefix)));
  return outside === undefined ? null : `${action} on partition key ${outside.split('#')[0]}# (dynamodb:LeadingKeys)`;
};

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

/** The event sink as a route without `grants.events` sees it deployed: not there. */
export const guardEventSink = <T extends EventSink>(sink: T): T => ({
  ...sink,
  send: async (events: Parameters<EventSink['send']>[0], options?: Parameters<EventSink['send']>[1]) => {
    const route = routeContext.getStore();
    if (route && !route.grants.events) throw accessDenied(route, 'kinesis:PutRecords');
    return sink.send(events, options);
  },
});
