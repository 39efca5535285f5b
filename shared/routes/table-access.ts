import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';
import { handlerGrants, routeTable } from './route-table';
import { isRoute, type FunctionSpec } from './function-spec';
import type { TableItemAction } from './route-types';

/** Table actions by kind: exact names, no wildcards, no Scan. */
export const tableReadActions = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
] as const satisfies readonly TableItemAction[];
export const tableWriteActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const satisfies readonly TableItemAction[];

/**
 * One IAM statement of a function's table access: actions on the table (or on its global
 * secondary indexes), only on items whose partition key starts with one of `leadingKeys`
 * (`dynamodb:LeadingKeys`, `ForAllValues:StringLike` with `<prefix>*`; on an index, the index's
 * partition key), and for `attributes` only those attributes written, returning nothing.
 */
export interface TableAccessStatement {
  /** The statement's purpose, as its `Sid`. */
  sid: string;
  actions: readonly string[];
  on: 'table' | 'indexes';
  leadingKeys: readonly string[];
  attributes?: readonly string[];
}

/** Partition-key prefixes every function of a credential reads: the API key it authenticates with (GetItem only). */
const API_KEY_PREFIX = 'APIKEY#';
/** A secret-key function also reads the console session a cookie names (GetItem only; shared/auth/sessions.ts). */
const SESSION_PREFIX = 'SESSION#';
/** The rate limiter: the workspace's limits (WS#, read) and its counters (RATE#, UpdateItem). */
const WORKSPACE_PREFIX = 'WS#';
const RATE_PREFIX = 'RATE#';

const uniq = (values: readonly string[]): string[] => [...new Set(values)];

/**
 * The table access of one function (one per handler; edge-links answers several rows), from
 * the access declarations of its route-table rows (a consumer's: its own spec), and nothing
 * else: the one function that turns access into IAM. The CDK stack grants exactly these
 * statements (lib/service-function.ts), the local grant guard (shared/local/grant-guard.ts)
 * refuses any call they do not cover, and the tests compare both with it.
 *
 * - Read: GetItem, BatchGetItem, Query on the partitions the rows read (`grants.reads`), write
 *   (`grants.writes`), and the workspace item when a row is rate-limited.
 * - ReadApiKey: a keyed function reads the `APIKEY#<hash>` item it authenticates with by GetItem,
 *   and nothing else under `APIKEY#`; a server- or app-key function also the `SESSION#<hash>` item
 *   of a console session cookie.
 * - QueryIndexes: Query on the indexes, only on the index partitions the rows name
 *   (`grants.indexes`; LeadingKeys is the index's partition key there).
 * - Write: the writes under the rows' prefixes, plus `RATE#` when rate-limited.
 * - RateCounters: a rate-limited function without other writes may UpdateItem `RATE#` items.
 * - KeyLastUsed: a keyed function may UpdateItem only `lastUsedOn` of `APIKEY#` items.
 *
 * With `grants.actions` (the consumers: shared/routes/consumer-specs.ts), Read, QueryIndexes and
 * Write keep only those actions, a statement left with none is dropped, and Read covers only the
 * prefixes `grants.reads` names.
 * - UpdateAttributes: with `grants.attributeUpdates`, UpdateItem of only those attributes of
 *   items under its prefixes, returning nothing.
 */
export const functionTableAccess = (fn: FunctionSpec): TableAccessStatement[] => {
  const grants = handlerGrants(fn);
  // The credentials of the function's routes (a consumer has none: no key, no rate limit).
  const rows = routeTable.filter((r) => r.handler === fn.handler);
  const credentials = rows.length ? rows.map((r) => r.credential) : isRoute(fn) ? [fn.credential] : [];
  const rateLimited = credentials.some((c) => rateLimitKindOf(c) !== undefined);
  const keyed = credentials.some((c) => c !== 'none');
  const sessions = credentials.some((c) => c === 'server' || c === 'app');
  const statements: TableAccessStatement[] = [];
  const writes =
    grants.table === 'readWrite' && grants.writes?.length
      ? uniq([...grants.writes, ...(rateLimited ? [RATE_PREFIX] : [])])
      : [];
  if (grants.table !== 'none') {
    const readsWrites = grants.actions === undefined;
    const reads = uniq([
      ...(grants.reads ?? []),
      ...(readsWrites ? (grants.writes ?? []) : []),
      ...(rateLimited ? [WORKSPACE_PREFIX] : []),
    ]);
    if (reads.length) statements.push({ sid: 'Read', actions: tableReadActions, on: 'table', leadingKeys: reads });
    if (grants.indexes?.length)
      statements.push({ sid: 'QueryIndexes', actions: ['dynamodb:Query'], on: 'indexes', leadingKeys: grants.indexes });
    // A readWrite route without prefixes writes nothing (the stack refuses to synthesize it).
    if (writes.length) statements.push({ sid: 'Write', actions: tableWriteActions, on: 'table', leadingKeys: writes });
    const only = grants.actions;
    if (only) {
      const narrowed = statements
        .map((s) => ({ ...s, actions: s.actions.filter((a) => (only as readonly string[]).includes(a)) }))
        .filter((s) => s.actions.length > 0);
      statements.splice(0, statements.length, ...narrowed);
    }
    if (grants.attributeUpdates)
      statements.push({
        sid: 'UpdateAttributes',
        actions: ['dynamodb:UpdateItem'],
        on: 'table',
        leadingKeys: grants.attributeUpdates.prefixes,
        attributes: ['pk', 'sk', ...grants.attributeUpdates.attributes],
      });
  }
  if (keyed)
    statements.push({
      sid: 'ReadApiKey',
      actions: ['dynamodb:GetItem'],
      on: 'table',
      leadingKeys: sessions ? [API_KEY_PREFIX, SESSION_PREFIX] : [API_KEY_PREFIX],
    });
  if (rateLimited && grants.table !== 'readWrite')
    statements.push({ sid: 'RateCounters', actions: ['dynamodb:UpdateItem'], on: 'table', leadingKeys: [RATE_PREFIX] });
  if (keyed)
    statements.push({
      sid: 'KeyLastUsed',
      actions: ['dynamodb:UpdateItem'],
      on: 'table',
      leadingKeys: [API_KEY_PREFIX],
      attributes: ['pk', 'sk', 'lastUsedOn'],
    });
  return statements;
};

/** One item access a DynamoDB call makes, as IAM evaluates it. */
export interface ItemAccess {
  action: string;
  on: 'table' | 'indexes';
  partitionKey: string;
}

type Wire = Record<string, unknown>;

/** A key attribute's value, from a document (`'LINK#x'`) or the wire (`{ S: 'LINK#x' }`). */
const stringOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const wire = (value as { S?: unknown } | undefined)?.S;
  return typeof wire === 'string' ? wire : '';
};

const pkOf = (entry: { Item?: Wire; Key?: Wire } | undefined): string => stringOf((entry?.Item ?? entry?.Key)?.pk);

/** The partition key value a Query names: `<partition attribute> = :value` in its key condition. */
const queriedPartition = (input: Wire): string => {
  const index = typeof input.IndexName === 'string' ? input.IndexName : '';
  const attribute = index ? `${index}pk` : 'pk';
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const condition = typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '';
  for (const match of condition.matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    const [, name = '', placeholder = ''] = match;
    if ((names[name] ?? name) === attribute) return stringOf(values[placeholder]);
  }
  return '';
};

/** Every (action, partition key) pair a call needs IAM to allow; each transaction item counts. */
export const itemAccessesOf = (commandName: string, input: Wire): ItemAccess[] => {
  const command = commandName.replace(/Command$/, '');
  const table = (action: string, partitionKey: string): ItemAccess => ({ action, on: 'table', partitionKey });
  switch (command) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [table(`dynamodb:${command}`, pkOf(input))];
    case 'Query':
      return [
        {
          action: 'dynamodb:Query',
          on: typeof input.IndexName === 'string' && input.IndexName !== '' ? 'indexes' : 'table',
          partitionKey: queriedPartition(input),
        },
      ];
    case 'BatchGetItem':
      return Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: Wire[] }>).flatMap((r) =>
        (r.Keys ?? []).map((key) => table('dynamodb:BatchGetItem', stringOf(key.pk))),
      );
    case 'BatchWriteItem':
      return Object.values(
        (input.RequestItems ?? {}) as Record<
          string,
          Array<{ PutRequest?: { Item?: Wire }; DeleteRequest?: { Key?: Wire } }>
        >,
      )
        .flat()
        .map((r) => table('dynamodb:BatchWriteItem', pkOf(r.PutRequest ?? r.DeleteRequest)));
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Array<{ Get?: { Key?: Wire } }>).map((t) =>
        table('dynamodb:GetItem', pkOf(t.Get)),
      );
    case 'TransactWriteItems':
      return ((input.TransactItems ?? []) as Array<Record<string, { Item?: Wire; Key?: Wire }>>).map((t) => {
        const [kind = '', op] = Object.entries(t)[0] ?? [];
        const action =
          kind === 'Put'
            ? 'PutItem'
            : kind === 'Update'
              ? 'UpdateItem'
              : kind === 'Delete'
                ? 'DeleteItem'
                : 'ConditionCheckItem';
        return table(`dynamodb:${action}`, pkOf(op));
      });
    default:
      // Scan and anything else: never granted to a route.
      return [table(`dynamodb:${command}`, '')];
  }
};

/**
 * The attributes an UpdateItem's update expression writes (the top-level name of each path it
 * SETs, REMOVEs, ADDs or DELETEs), as `dynamodb:Attributes` counts them.
 */
export const updatedAttributesOf = (input: Wire): string[] => {
  const expression = typeof input.UpdateExpression === 'string' ? input.UpdateExpression : '';
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const attributes: string[] = [];
  for (const clause of expression.split(/\b(?=(?:SET|REMOVE|ADD|DELETE)\s)/i)) {
    const [, action = '', body = ''] = /^\s*(SET|REMOVE|ADD|DELETE)\s+([\s\S]*)$/i.exec(clause) ?? [];
    if (!action) continue;
    // Top-level commas only (function calls such as if_not_exists(a, :b) hold commas too).
    let depth = 0;
    let part = '';
    const parts: string[] = [];
    for (const ch of body) {
      if (ch === '(') depth += 1;
      if (ch === ')') depth -= 1;
      if (ch === ',' && depth === 0) {
        parts.push(part);
        part = '';
      } else part += ch;
    }
    parts.push(part);
    for (const item of parts) {
      const path = /^\s*([#\w]+)/.exec(item)?.[1] ?? '';
      if (path) attributes.push(names[path] ?? path);
    }
  }
  return attributes;
};

/** Whether an UpdateItem (not in a transaction) writes only these attributes and returns nothing. */
const attributesAllowed = (allowed: readonly string[], commandName: string, input: Wire): boolean => {
  if (commandName.replace(/Command$/, '') !== 'UpdateItem') return false;
  if (input.ReturnValues !== undefined && input.ReturnValues !== 'NONE') return false;
  const written = updatedAttributesOf(input);
  return written.length > 0 && written.every((name) => allowed.includes(name));
};

/**
 * Why IAM would refuse this call under these statements, or null when every item access it
 * makes is allowed. A statement with `attributes` covers only an UpdateItem that writes those
 * attributes alone and returns nothing.
 */
export const refusedAccess = (
  statements: readonly TableAccessStatement[],
  commandName: string,
  input: Wire,
): string | null => {
  for (const access of itemAccessesOf(commandName, input)) {
    const allowed = statements.some(
      (s) =>
        s.on === access.on &&
        s.actions.includes(access.action) &&
        s.leadingKeys.some((prefix) => access.partitionKey.startsWith(prefix)) &&
        (!s.attributes || attributesAllowed(s.attributes, commandName, input)),
    );
    if (!allowed) {
      const shown = access.partitionKey.includes('#')
        ? `${access.partitionKey.split('#')[0] ?? ''}#`
        : access.partitionKey;
      return `${access.action}${access.on === 'indexes' ? ` on index ${String(input.IndexName)}` : ''} on partition key ${shown || '(none)'} (dynamodb:LeadingKeys)`;
    }
  }
  return null;
};
