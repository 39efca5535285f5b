import type { ConsumerSpec } from './function-spec';

/**
 * The functions that are not HTTP routes but touch the table: each names its entry
 * (`lambdas/{handler}.ts`), what starts it (`trigger`) and its access in the routes' vocabulary
 * (`grants`), so the one function that turns access into IAM (`functionTableAccess`,
 * table-access.ts) grants them deployed (lib/) and the local grant guard enforces them where the
 * local stack runs their stand-ins (shared/local/grant-guard.ts).
 */

/**
 * The click counter consumer: reads a link's counters and updates them, on link items; with the
 * edge's hot links on, it also nominates the links that just turned hot in the hot-set item
 * (`EDGEHOT#`, one UpdateItem per batch at most; never written with the feature off).
 */
export const clickCountersConsumer: ConsumerSpec = {
  handler: 'click-counters',
  trigger: 'stream',
  grants: {
    table: 'readWrite',
    reads: ['LINK#'],
    writes: ['LINK#', 'EDGEHOT#'],
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  },
  summary: "Event stream -> the links' click counters, one update per link per batch",
};

/**
 * The scheduled lake compaction: its settle after a run (shared/clicks/settle-click-counters.ts)
 * reads a link's counters and sets the compacted hours' distinct count, on link items only.
 */
export const lakeCompactionConsumer: ConsumerSpec = {
  handler: 'lake-compaction',
  trigger: 'schedule',
  grants: {
    table: 'readWrite',
    reads: ['LINK#'],
    writes: ['LINK#'],
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  },
  summary:
    'Scheduled: compacts closed hours of the raw lake into per-workspace Parquet, merges closed days into daily files (Athena UNLOAD), then settles the click counters of the workspace-days it wrote',
};

/**
 * The spool redrive: re-sends spooled events, dropping those of erased workspaces, whose
 * tombstones (`ERASED#`, shared/tenancy/erased-workspaces.ts) it may GetItem, and nothing else.
 */
export const redriveConsumer: ConsumerSpec = {
  handler: 'events-redrive',
  trigger: 'queue',
  grants: { table: 'read', reads: ['ERASED#'], actions: ['dynamodb:GetItem'], events: true },
  summary: 'Re-sends spooled events to the event stream (SQS event source), dropping those of erased workspaces',
};

/**
 * The outbound publisher (table stream -> event bus and webhook queue): Queries the workspace's
 * webhook endpoints and writes the event log (`EVENTLOG#`), nothing else of the table.
 */
export const outboundPublisherConsumer: ConsumerSpec = {
  handler: 'outbound-publisher',
  trigger: 'stream',
  grants: {
    table: 'readWrite',
    reads: ['WEBHOOKS#'],
    writes: ['EVENTLOG#'],
    actions: ['dynamodb:Query', 'dynamodb:BatchWriteItem', 'dynamodb:PutItem'],
  },
  summary: 'Table stream -> event bus and webhook queue',
};

/**
 * The webhook delivery (queue -> workspace endpoints): reads an endpoint (GetItem), may only mark
 * one disabled (after a 410), and writes its delivery markers (`WEBHOOKSENT#`,
 * shared/outbound/webhook-marker.ts: each event once per endpoint).
 */
export const webhookDeliveryConsumer: ConsumerSpec = {
  handler: 'webhook-delivery',
  trigger: 'queue',
  grants: {
    table: 'readWrite',
    reads: ['WEBHOOKS#'],
    writes: ['WEBHOOKSENT#'],
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    attributeUpdates: { prefixes: ['WEBHOOKS#'], attributes: ['enabled', 'disabledAt', 'disabledReason'] },
  },
  summary: 'Webhook queue -> workspace endpoints (Standard Webhooks)',
};

/**
 * The hot-link writer (only with the `edgeHotLinks` context on): scheduled every minute and fed
 * the table's stream (LINK items' changes), one invocation at a time. It reads the link items of
 * the links in the edge's KeyValueStore and of the nominated candidates (BatchGet), their
 * domains' host records, and the hot-set item (`EDGEHOT#`: the candidates, consumed, and the last
 * refresh's time, recorded); it writes the store and the record of each entry it put
 * (`HOTSERVED#`, BatchWrite puts: served-history.ts), nothing else of the table.
 */
export const edgeHotSetConsumer: ConsumerSpec = {
  handler: 'edge-hot-set',
  trigger: 'schedule',
  grants: {
    table: 'readWrite',
    reads: ['LINK#', 'HOST#', 'EDGEHOT#'],
    writes: ['EDGEHOT#', 'HOTSERVED#'],
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
  },
  summary:
    "Scheduled every minute and on the table stream's link changes: refreshes the edge's hot-link KeyValueStore from the links' live counters and removes changed links within seconds (one serialized writer)",
};

/**
 * The edge click-log consumer (CloudFront real-time logs on their Kinesis stream, only with the
 * `edgeHotLinks` context on): turns the clicks the hot-link function answered at the edge into
 * click events on the event stream. It reads what the edge served (`HOTSERVED#`, Query), the
 * link (`LINK#`; by its slug `SLUG#` when no write is remembered) and the visitor salt (`SECRET`),
 * nothing else, and writes nothing of the table.
 */
export const edgeClickLogsConsumer: ConsumerSpec = {
  handler: 'edge-click-logs',
  trigger: 'stream',
  grants: {
    table: 'read',
    reads: ['HOTSERVED#', 'LINK#', 'SLUG#', 'SECRET'],
    actions: ['dynamodb:GetItem', 'dynamodb:Query'],
    events: true,
  },
  summary: "CloudFront real-time logs -> click events of the redirects the edge's hot-link function answered",
};
