/** Every key of the single table is built here, and nowhere else. */
export interface ItemKey {
  pk: string;
  sk: string;
}

export const keys = {
  workspace: (workspaceId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' }),
  apiKey: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
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
  /** A workspace's webhook endpoint (its list is one Query); gsi1 finds it by endpoint id alone. */
  webhookEndpoint: (workspaceId: string, endpointId: string): ItemKey => ({
    pk: `WEBHOOKS#${workspaceId}`,
    sk: `WEBHOOK#${endpointId}`,
  }),
  webhookEndpointsOf: (workspaceId: string) => ({ pk: `WEBHOOKS#${workspaceId}`, skPrefix: 'WEBHOOK#' }),
  webhookEndpointLookup: (endpointId: string) => ({ gsi1pk: `WEBHOOK#${endpointId}`, gsi1sk: 'WEBHOOK' }),
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
  /** Published events of a workspace by time, for `webhooks replay` (TTL 30 days). */
  eventLog: (workspaceId: string, occurredAt: string, eventId: string): ItemKey => ({
    pk: `EVENTLOG#${workspaceId}`,
    sk: `${occurredAt}#${eventId}`,
  }),
  eventLogOf: (workspaceId: string) => ({ pk: `EVENTLOG#${workspaceId}` }),
};

/** Sort keys of the items the table's stream turns into outbound events (the stream filter). */
export const streamedItemSortKeys = ['LINK', 'OUTBOX', 'REPLAY'] as const;
