import type { CredentialKind } from '@shared/auth/credential';
import type { RouteScope } from '@shared/auth/scopes';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ANY';

/** Which HTTP API serves the route: the service API (v1, legacy, meta) or the short-link edge. */
export type ApiName = 'service' | 'edge';

/**
 * The partition-key prefixes of the single table (shared/db/keys.ts) a route may write. IAM
 * enforces them deployed (`dynamodb:LeadingKeys`) and the local grant guard locally.
 */
export const writablePrefixes = [
  'LINK#',
  'SLUG#',
  'WS#',
  'IDEM#',
  'PWTRY#',
  'ATTR#',
  'CLICKID#',
  'FP#',
  'OPEN#',
  'CEVT#',
  'ANALYTICS#',
  'OUTBOX#',
  'RATE#',
  'EVENTLOG#',
  'WEBHOOKSENT#',
  'AUDIT#',
  'SESSION#',
  'CONVERSIONS#',
  'EDGEHOT#',
  'HOTSERVED#',
] as const;
export type WritablePrefix = (typeof writablePrefixes)[number];

/**
 * The index partitions of the link lists (shared/links/link-index.ts): `<workspaceId>#<type>#...`,
 * and workspace ids are `ws_...`.
 */
export const LINK_LIST_INDEX: readonly string[] = ['ws_'];

/** The item actions a function may be granted on the table (never Scan). */
export type TableItemAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:ConditionCheckItem';

/** The index partitions of the audit log's filters (shared/audit/audit-repository.ts): `AUDIT#<workspaceId>#...`. */
export const AUDIT_INDEX: readonly string[] = ['AUDIT#'];

/** What a route may do with the table and the other services (least privilege). */
export interface RouteGrants {
  /** Table access: none; reads (GetItem, BatchGetItem, Query: never Scan); reads and writes. */
  table: 'none' | 'read' | 'readWrite';
  /** With `readWrite`: the partition-key prefixes it writes (Put/Update/Delete, in or out of transactions). */
  writes?: readonly WritablePrefix[];
  /**
   * The partition-key prefixes it reads (GetItem, BatchGetItem, Query), besides those it writes
   * (readable too) and what its credential implies (shared/routes/table-access.ts): IAM
   * `dynamodb:LeadingKeys` deployed, the local grant guard locally.
   */
  reads?: readonly string[];
  /**
   * The index partition-key prefixes it Queries on the table's global secondary indexes (only
   * then is `index/*` granted, with these as `dynamodb:LeadingKeys`: on an index, the index's key).
   */
  indexes?: readonly string[];
  /**
   * Only these table actions (a consumer that reads one item and updates it: GetItem and
   * UpdateItem): every table statement keeps just these, and one left with none is dropped; and
   * then `reads` names every prefix it reads (what it writes is not readable by that alone).
   * Without it, reads get GetItem, BatchGetItem and Query, and writes every write action.
   */
  actions?: readonly TableItemAction[];
  /**
   * UpdateItem of only these attributes (besides the key) of items under these prefixes,
   * returning nothing: `dynamodb:Attributes` deployed, the local grant guard locally.
   */
  attributeUpdates?: { prefixes: readonly string[]; attributes: readonly string[] };
  events?: boolean;
  analytics?: boolean;
}

export interface RouteDef {
  /** Lambda name and handler entry: `lambdas/{handler}.ts`. */
  handler: string;
  method: HttpMethod;
  /** API Gateway path, `{param}` for path parameters, `{proxy+}` for greedy, `$default` for the catch-all. */
  path: string;
  credential: CredentialKind;
  /**
   * Server-key routes: the scope a key needs (shared/auth/scopes.ts). A key without it gets 403
   * `forbidden` (`details.reason = "missing_scope"`) before the resource is read.
   */
  scope?: RouteScope;
  api: ApiName;
  /** Least privilege: what the function may do with the table, and whether it sends events. */
  grants: RouteGrants;
  summary: string;
  /**
   * A public route (`credential: 'none'`) that authenticates a key itself (console sign-in): it
   * gets the failed-auth limit's configuration, as keyed routes do.
   */
  authenticatesKey?: boolean;
  /** A route whose work is heavier than one request's: more memory (CPU) and time than the defaults. */
  lambda?: { memorySize?: number; timeoutSeconds?: number };
}

export const handlerEntry = (route: Pick<RouteDef, 'handler'>) => `lambdas/${route.handler}.ts`;

/**
 * The function timeout of a route, in seconds: analytics waits for Athena (it gives up after
 * 25 s) within API Gateway's 30 s integration limit; everything else 10 s. The CDK construct and
 * the local server (through the Lambda context's remaining time) both read it.
 */
export const routeTimeoutSeconds = (route: Pick<RouteDef, 'grants' | 'lambda'>): number =>
  route.lambda?.timeoutSeconds ?? (route.grants.analytics ? 29 : 10);
