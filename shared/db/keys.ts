/** Every key of the single table is built here, and nowhere else. */
export interface ItemKey {
  pk: string;
  sk: string;
}

export const keys = {
  workspace: (workspaceId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' }),
  apiKey: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** A console sign-in session, by the SHA-256 of its cookie's token (expires by TTL; reads check its expiry). */
  session: (tokenHash: string): ItemKey => ({ pk: `SESSION#${tokenHash}`, sk: 'SESSION' }),
  /** An API key found by its public id (gsi1) and listed with its workspace's keys (gsi2, oldest first). */
  apiKeyById: (keyId: string) => ({ gsi1pk: `KEYID#${keyId}`, gsi1sk: 'APIKEY' }),
  apiKeysOfWorkspace: (workspaceId: string, createdAt: string, keyId: string) => ({
    gsi2pk: `WSKEYS#${workspaceId}`,
    gsi2sk: `${createdAt}#${keyId}`,
  }),
  domain: (workspaceId: string, domainId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: `DOMAIN#${domainId}` }),
  domainsOfWorkspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, skPrefix: 'DOMAIN#' }),
  host: (hostname: string): ItemKey => ({ pk: `HOST#${hostname.toLowerCase()}`, sk: 'HOST' }),
  app: (workspaceId: string, appId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: `APP#${appId}` }),
  link: (linkId: string): ItemKey => ({ pk: `LINK#${linkId}`, sk: 'LINK' }),
  /**
   * The edge's hot set (docs/edge.md, only with the `edgeHotLinks` context on): one item holding
   * the links nominated as newly hot (a string set the counter consumer adds to and the refresh
   * consumes) and the last refresh's time and figures; expires by TTL when nothing writes it.
   */
  edgeHotSet: (): ItemKey => ({ pk: 'EDGEHOT#', sk: 'HOTSET' }),
  /** A link's list entry for one filter (domain, tag): carries the list index keys; see link-index.ts. */
  linkListEntry: (linkId: string, entry: string): ItemKey => ({ pk: `LINK#${linkId}`, sk: `ENTRY#${entry}` }),
  slug: (domain: string, key: string): ItemKey => ({ pk: `SLUG#${domain.toLowerCase()}#${key}`, sk: 'SLUG' }),
  tag: (workspaceId: string, tagName: string): ItemKey => ({
    pk: `WS#${workspaceId}`,
    sk: `TAG#${tagName.toLowerCase()}`,
  }),
  idempotency: (workspaceId: string, route: string, keyHash: string): ItemKey => ({
    pk: `IDEM#${workspaceId}#${route}#${keyHash}`,
    sk: 'IDEM',
  }),
  /** Password tries of one client (salted IP hash) on one link; expires by TTL. */
  passwordAttempts: (linkId: string, clientHash: string): ItemKey => ({
    pk: `PWTRY#${linkId}#${clientHash}`,
    sk: 'PWTRY',
  }),
  secret: (name: string): ItemKey => ({ pk: 'SECRET', sk: name }),
  /**
   * One write of a hot-link entry to the edge's KeyValueStore (`host/key`), by the write's time
   * (ISO): the entry the edge served at a moment is the latest write at or before it (TTL 1 day).
   */
  hotServed: (storeKey: string, writtenAt: string): ItemKey => ({ pk: `HOTSERVED#${storeKey}`, sk: writtenAt }),
  hotServedOf: (storeKey: string) => ({ pk: `HOTSERVED#${storeKey}` }),
  /** Browser origins some publishable key allows (CORS preflight carries no key). */
  browserOrigin: (origin: string, keyHash: string): ItemKey => ({ pk: `ORIGIN#${origin}`, sk: `APIKEY#${keyHash}` }),
  browserOriginsOf: (origin: string) => ({ pk: `ORIGIN#${origin}` }),
  /** Client attribution: one click's record, found by attribution id or by click id (TTL 7 days). */
  attribution: (attributionId: string): ItemKey => ({ pk: `ATTR#${attributionId}`, sk: 'ATTR' }),
  attributionByClick: (clickId: string): ItemKey => ({ pk: `CLICKID#${clickId}`, sk: 'ATTR' }),
  /** Probabilistic matching: clicks of a workspace by device fingerprint, sorted by time. */
  fingerprintClick: (workspaceId: string, fingerprint: string, clickedAt: string, clickId: string): ItemKey => ({
    pk: `FP#${workspaceId}#${fingerprint}`,
    sk: `${clickedAt}#${clickId}`,
  }),
  fingerprintClicksOf: (workspaceId: string, fingerprint: string) => ({ pk: `FP#${workspaceId}#${fingerprint}` }),
  /** First open / install, once per install id. */
  firstOpen: (workspaceId: string, installId: string): ItemKey => ({
    pk: `OPEN#${workspaceId}#${installId}`,
    sk: 'OPEN',
  }),
  /** Customer event dedup by event id (TTL 7 days). */
  customerEvent: (workspaceId: string, eventId: string): ItemKey => ({
    pk: `CEVT#${workspaceId}#${eventId}`,
    sk: 'CEVT',
  }),
  /**
   * A rate-limit counter: one workspace's budget (server, client, legacy) in one one-minute
   * window, sharded (rate-limit-policy.ts); expires by TTL. Not under WS#: the write load of a
   * busy workspace must not share a partition with its other items.
   */
  rateCounter: (workspaceId: string, kind: string, windowStart: number, shard: number): ItemKey => ({
    pk: `RATE#${workspaceId}#${kind}#${windowStart}#${shard}`,
    sk: 'RATE',
  }),
  /**
   * Failed key authentications from one address (a hash of it) in one five-minute window; under
   * RATE# so the rate limiter's counter grant covers it; expires by TTL.
   */
  authFailureCounter: (addressHash: string, windowStart: number): ItemKey => ({
    pk: `RATE#authfail#${addressHash}#${windowStart}`,
    sk: 'RATE',
  }),
  /** A cached analytics answer: one per workspace, route, subject (link / app), range and traffic. */
  analyticsCache: (workspaceId: string, route: string, subjectId: string, range: string, traffic: string): ItemKey => ({
    pk: `ANALYTICS#${workspaceId}#${route}#${subjectId}#${range}#${traffic}`,
    sk: 'ANALYTICS',
  }),
  /** A workspace's web conversion settings: its click-token HMAC secret and query parameter name. */
  conversionSettings: (workspaceId: string): ItemKey => ({ pk: `CONVERSIONS#${workspaceId}`, sk: 'CONVERSIONS' }),
  /** A workspace's webhook endpoint (its list is one Query); gsi1 finds it by endpoint id alone. */
  webhookEndpoint: (workspaceId: string, endpointId: string): ItemKey => ({
    pk: `WEBHOOKS#${workspaceId}`,
    sk: `WEBHOOK#${endpointId}`,
  }),
  webhookEndpointsOf: (workspaceId: string) => ({ pk: `WEBHOOKS#${workspaceId}`, skPrefix: 'WEBHOOK#' }),
  webhookEndpointLookup: (endpointId: string) => ({ gsi1pk: `WEBHOOK#${endpointId}`, gsi1sk: 'WEBHOOK' }),
  /**
   * An audit-log entry: one partition per workspace, sorted by time (newest first by a descending
   * Query). The filters are index partitions of the same workspace (audit-repository.ts):
   * gsi1 by action, gsi2 by resource id, gsi3 by API key id; each sorted by the same time key.
   */
  auditEntry: (workspaceId: string, occurredAt: string, entryId: string): ItemKey => ({
    pk: `AUDIT#${workspaceId}`,
    sk: `${occurredAt}#${entryId}`,
  }),
  auditEntriesOf: (workspaceId: string) => ({ pk: `AUDIT#${workspaceId}` }),
  auditByAction: (workspaceId: string, action: string) => `AUDIT#${workspaceId}#action#${action}`,
  auditByResource: (workspaceId: string, resourceId: string) => `AUDIT#${workspaceId}#resource#${resourceId}`,
  auditByKey: (workspaceId: string, keyId: string) => `AUDIT#${workspaceId}#key#${keyId}`,
  /** An attribution / customer event committed and waiting for the table's stream to publish it (TTL 1 day). */
  outbox: (eventId: string): ItemKey => ({ pk: `OUTBOX#${eventId}`, sk: 'OUTBOX' }),
  /** A webhook replay request: the stream enqueues the event for one endpoint (TTL 1 day). */
  webhookReplay: (endpointId: string, eventId: string): ItemKey => ({
    pk: `REPLAY#${endpointId}#${eventId}`,
    sk: 'REPLAY',
  }),
  /** One event's delivery to one endpoint: delivered, or being delivered (webhook-marker.ts; TTL 4 days). */
  webhookSent: (endpointId: string, eventId: string): ItemKey => ({
    pk: `WEBHOOKSENT#${endpointId}#${eventId}`,
    sk: 'WEBHOOKSENT',
  }),
  /**
   * Published events of a workspace by time, for `webhooks replay` (TTL 30 days), spread over
   * EVENT_LOG_SHARDS partition keys (the repository deals a batch's events over them evenly):
   * one workspace's events never make one hot key.
   */
  eventLog: (workspaceId: string, occurredAt: string, eventId: string, shard: number): ItemKey => ({
    pk: `EVENTLOG#${workspaceId}#${shard % EVENT_LOG_SHARDS}`,
    sk: `${occurredAt}#${eventId}`,
  }),
  /**
   * The tombstone of an erased workspace (erased-workspaces.ts): replays of spooled and kept
   * copies drop its events. Not under a workspace-scoped prefix and without a `workspaceId`
   * attribute, so erasure itself never selects it.
   */
  erasedWorkspace: (workspaceId: string): ItemKey => ({ pk: `ERASED#${workspaceId}`, sk: 'ERASED' }),
  /**
   * Every partition key of a workspace's event log, for reads that gather the shards: the shards,
   * then the single key the log used before it was sharded (`EVENTLOG#<ws>`), whose items stay
   * readable until their 30-day TTL removes them.
   */
  eventLogPartitions: (workspaceId: string): string[] => [
    ...Array.from({ length: EVENT_LOG_SHARDS }, (_, shard) => `EVENTLOG#${workspaceId}#${shard}`),
    `EVENTLOG#${workspaceId}`,
  ],
};

/**
 * Partition keys of one workspace's event log. DynamoDB serves at most 1,000 write units per
 * second per partition key. The plan: a viral workspace publishes 10,000 events/s (the edge's
 * viral plan, docs/edge.md: each click can become a `link.clicked` event); a logged event is one
 * item of 1 to 2 KB (a `link.clicked` event carries the Link resource), 2 write units, so
 * 20,000 units/s: 40 keys take 500 units/s each, half the per-key limit (2x headroom).
 */
export const EVENT_LOG_SHARDS = 40;

/** FNV-1a (32-bit) of a string, modulo the shard count: stable and even, no dependency. */
export const eventLogShardOf = (value: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % EVENT_LOG_SHARDS;
};

/** Sort keys of the items the table's stream turns into outbound events (the stream filter). */
export const streamedItemSortKeys = ['LINK', 'OUTBOX', 'REPLAY'] as const;
