import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { EVENT_LOG_SHARDS, keys } from '@shared/db/keys';
import { linkEvent } from '@shared/outbound/event-builders';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import { eventLogRepository } from '@shared/outbound/event-log-repository';
import type { LinkRecord } from '@shared/links/link-record';
import {
  COUNTER_PLAN,
  shardCountFor,
  VIRAL_REQUESTS_PER_SECOND,
  type CounterPlan,
} from '@shared/rate-limits/rate-limit-policy';
import { clearRateLimitCache, countRequest } from '@shared/rate-limits/rate-limiter';
import type { DynamoFaultProxy } from './dynamodb-fault-proxy';
import { itemSize, writeUnits } from './dynamodb-item-size';

/**
 * A scaled-down production load on the two writers that once had a hot key: the outbound event
 * log (`EVENTLOG#`) and the rate limiter's counters (`RATE#`).
 *
 * Everything is scaled by one factor: DynamoDB's per-key limits (1,000 write and 3,000 read units
 * per second) in the fault proxy, the viral plan's 10,000 events/s and 10,000 limited requests/s
 * of one workspace, and the limiter's per-shard share; the shard counts stay what production
 * uses. At 1/100 a key takes 10 write units/s and one workspace sends 100 events (200 write
 * units) and 100 requests a second, 10 to 20 times what one key takes: only a shard scheme
 * passes, which the `unsharded` control shows (the same load on one key is throttled). Both
 * writers deal their writes over the shards in turn, so the shares are even at any scale.
 *
 * Time is modelled: the proxy's token buckets and the limiter run on a clock this load moves one
 * second per step after sending that second's work, so the result does not depend on how fast
 * the machine is (the bench reports the real time it took).
 */
export interface HotKeysLoadOptions {
  proxy: DynamoFaultProxy;
  /** Moves the proxy's clock (ms); the load owns it. */
  setClock: (ms: number) => void;
  /** Modelled seconds. */
  seconds: number;
  /** The scale of limits and load (0.1: a tenth). */
  scale: number;
  workspaceId: string;
}

export interface HotKeysLoadResult {
  seconds: number;
  scale: number;
  perKeyWriteUnits: number;
  eventsPerSecond: number;
  requestsPerSecond: number;
  /** Write units of one logged event (its item as DynamoDB sizes it). */
  eventWriteUnits: number;
  eventLogShards: number;
  limiterShards: number;
  /** Counter shards of the limited workspace's window. */
  limitedShards: number;
  eventsSent: number;
  /** Events `eventLogRepository.since` gave back, each once, in order. */
  eventsRead: number;
  eventsLost: number;
  eventsOutOfOrder: number;
  requestsSent: number;
  /** Requests of the limited workspace let through in its windows, and what its limit allowed. */
  admitted: number;
  admittedAllowed: number;
  /** Throttled writes seen by the proxy (every SDK attempt) plus batch entries returned unprocessed. */
  writeThrottles: number;
  unprocessed: number;
  /** Throttled writes and unprocessed entries on the event log's keys (`EVENTLOG#`). */
  eventLogThrottled: number;
  /** Throttled writes on the limiter's counters (`RATE#`). */
  limiterThrottled: number;
  /** Calls that failed after the SDK's retries (a throttle it gave up on). */
  failedCalls: number;
  realSeconds: number;
}

/** A Link resource as the stream publishes it: the size of a real one (title, tags, UTM, overrides). */
const link = (i: number): LinkRecord => ({
  id: `lnk_${String(i).padStart(24, '0')}`,
  workspaceId: 'ws_load',
  linkType: 'DEEPLINK',
  domainId: 'dom_0000000000000000000000',
  domain: 'go.example-brand.com',
  key: `spring-launch-${i}`,
  url: `https://www.example-brand.com/collections/spring-launch/products/item-${i}?ref=newsletter`,
  title: 'Spring launch: the new collection, free shipping this week',
  desktopOverrideUrl: null,
  androidOverrideUrl: 'https://play.google.com/store/apps/details?id=com.examplebrand.app',
  iosOverrideUrl: 'https://apps.apple.com/app/example-brand/id1234567890',
  expiresAt: null,
  expiredUrl: null,
  passwordHash: null,
  comments: 'Newsletter of the spring launch; replaces last season link',
  objects: null,
  tags: [
    { id: 'tag_00000000000000000000001', name: 'newsletter', color: 'blue' },
    { id: 'tag_00000000000000000000002', name: 'spring-2026', color: 'green' },
  ],
  tracking: { utmSource: 'newsletter', utmMedium: 'email', utmCampaign: 'spring-launch-2026' },
  socialPreview: null,
  deepLinkAppId: 'app_0000000000000000000000',
  archived: false,
  clicks: 120_000 + i,
  botClicks: 321,
  lastClicked: '2026-11-23T08:00:00.000Z',
  lastBotClickedAt: null,
  createdAt: '2026-11-01T08:00:00.000Z',
  updatedAt: '2026-11-01T08:00:00.000Z',
});

const clickedEvent = (workspaceId: string, second: number, i: number): OutboundEvent => {
  const occurredAt = new Date(Date.UTC(2026, 10, 23, 8, 0, 0) + second * 1000 + (i % 1000)).toISOString();
  return linkEvent('link.clicked', { ...link(i), workspaceId }, `load:${second}:${i}`, occurredAt);
};

/** Write units of an event's log item. */
export const eventLogItemUnits = (event: OutboundEvent): number =>
  writeUnits(
    itemSize(
      marshall(
        {
          pk: `EVENTLOG#${event.workspaceId}#00`,
          sk: `${event.occurredAt}#${event.id}`,
          type: 'EVENTLOG',
          event,
          ttl: 1,
        },
        { removeUndefinedValues: true },
      ),
    ),
  );

/** Event log appends in flight at once (publisher invocations: one per stream shard). */
const PUBLISHERS = 4;
/** Concurrent Lambda instances of the viral plan: 10,000 requests/s x 20 ms (docs/edge.md). */
const VIRAL_INSTANCES = 200;

/** Runs the tasks `concurrency` at a time; resolves to how many failed (the control's throttles surface so). */
const runPool = async (tasks: Array<() => Promise<unknown>>, concurrency: number): Promise<number> => {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++];
      if (task) await task().catch(() => (failed += 1));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failed;
};

/** The publisher's batches: a stream batch of up to 100 records becomes one `append`. */
const PUBLISH_BATCH = 100;

/**
 * Runs the load. `unsharded`: the control, the same load on one key per writer (the event log's
 * items put under one `EVENTLOG#<ws>` key as before sharding, the limiter on one counter).
 */
export const runHotKeysLoad = async (opts: HotKeysLoadOptions, unsharded = false): Promise<HotKeysLoadResult> => {
  const started = performance.now();
  const { proxy, scale, seconds, workspaceId } = opts;
  const perKeyWriteUnits = 1_000 * scale;
  proxy.set({ perKeyLimits: { writeUnitsPerSecond: perKeyWriteUnits, readUnitsPerSecond: 3_000 * scale } });
  const eventsPerSecond = Math.round(VIRAL_REQUESTS_PER_SECOND * scale);
  const requestsPerSecond = Math.round(VIRAL_REQUESTS_PER_SECOND * scale);
  const plan: CounterPlan = unsharded
    ? { maxShards: 1, requestsPerShard: Number.MAX_SAFE_INTEGER }
    : {
        maxShards: COUNTER_PLAN.maxShards,
        requestsPerShard: Math.max(1, Math.round(COUNTER_PLAN.requestsPerShard * scale)),
      };
  // The limited workspace: the default 3,000/min scaled; the open one: the maximum, never reached.
  const limited = `${workspaceId}_limited`;
  const open = `${workspaceId}_open`;
  const throttlesBefore = proxy.counts.writeThrottles;
  const unprocessedBefore = proxy.counts.unprocessed;
  const byPrefixBefore = structuredClone({
    throttles: proxy.counts.writeThrottlesByPrefix,
    unprocessed: proxy.counts.unprocessedByPrefix,
  });
  const throttledOn = (prefix: string) =>
    (proxy.counts.writeThrottlesByPrefix[prefix] ?? 0) -
    (byPrefixBefore.throttles[prefix] ?? 0) +
    (proxy.counts.unprocessedByPrefix[prefix] ?? 0) -
    (byPrefixBefore.unprocessed[prefix] ?? 0);
  clearRateLimitCache();
  const t0 = Date.UTC(2026, 10, 23, 8, 0, 0);
  const sent: OutboundEvent[] = [];
  let admitted = 0;
  let admittedAllowed = 0;
  let requestsSent = 0;
  let failures = 0;
  const limitedLimit = Math.round(3_000 * scale);
  const workspaceWith = (id: string, rateLimits: Record<string, number>) =>
    getDocumentClient().send(
      new PutCommand({ TableName: tableName(), Item: { ...keys.workspace(id), type: 'WORKSPACE', id, rateLimits } }),
    );
  await workspaceWith(limited, { serverPerMinute: limitedLimit });
  await workspaceWith(open, { clientPerMinute: 1_000_000 });
  for (let second = 0; second < seconds; second++) {
    opts.setClock(second * 1000);
    const now = t0 + second * 1000;
    if (second % 60 === 0) admittedAllowed += limitedLimit;
    const events = Array.from({ length: eventsPerSecond }, (_, i) => clickedEvent(workspaceId, second, i));
    sent.push(...events);
    const batches: OutboundEvent[][] = [];
    for (let i = 0; i < events.length; i += PUBLISH_BATCH) batches.push(events.slice(i, i + PUBLISH_BATCH));
    // The second's work: the publisher's batches a few at a time; the requests as the scaled
    // viral plan's Lambda instances send them, one at a time each (200 concurrent at 10,000/s x 20 ms).
    const appends = batches.map(
      (batch) => () => (unsharded ? putUnsharded(batch, now) : eventLogRepository.append(batch, now)),
    );
    // Half the requests on the limited workspace (server budget), half on the open one (client).
    const requests = Array.from({ length: requestsPerSecond }, (_, i) =>
      i % 2 === 0
        ? async () => {
            if (!(await countRequest(limited, 'server', now, plan)).limited) admitted += 1;
          }
        : () => countRequest(open, 'client', now, plan),
    );
    const [failedAppends, failedRequests] = await Promise.all([
      runPool(appends, PUBLISHERS),
      runPool(requests, Math.max(1, Math.round(VIRAL_INSTANCES * scale))),
    ]);
    failures += failedAppends + failedRequests;
    requestsSent += requestsPerSecond;
  }
  opts.setClock(seconds * 1000 + 60_000); // full buckets for the read-back
  const readBack: OutboundEvent[] = [];
  for await (const page of eventLogRepository.since(workspaceId, new Date(t0).toISOString())) readBack.push(...page);
  const sentIds = new Set(sent.map((e) => e.id));
  const readIds = new Set(readBack.map((e) => e.id));
  let outOfOrder = 0;
  for (let i = 1; i < readBack.length; i++) {
    const [a, b] = [readBack[i - 1], readBack[i]];
    if (a && b && `${a.occurredAt}#${a.id}` > `${b.occurredAt}#${b.id}`) outOfOrder++;
  }
  const first = sent[0];
  return {
    seconds,
    scale,
    perKeyWriteUnits,
    eventsPerSecond,
    requestsPerSecond,
    eventWriteUnits: first ? eventLogItemUnits(first) : 0,
    eventLogShards: unsharded ? 1 : EVENT_LOG_SHARDS,
    limiterShards: plan.maxShards,
    limitedShards: shardCountFor(limitedLimit, plan),
    eventsSent: sent.length,
    eventsRead: readBack.length,
    eventsLost: [...sentIds].filter((id) => !readIds.has(id)).length,
    eventsOutOfOrder: outOfOrder,
    requestsSent,
    admitted,
    admittedAllowed: Math.min(admittedAllowed, Math.ceil(requestsSent / 2)),
    writeThrottles: proxy.counts.writeThrottles - throttlesBefore,
    unprocessed: proxy.counts.unprocessed - unprocessedBefore,
    eventLogThrottled: throttledOn('EVENTLOG#'),
    limiterThrottled: throttledOn('RATE#'),
    failedCalls: failures,
    realSeconds: (performance.now() - started) / 1000,
  };
};

/** The control's event log: the same items under the one key the log used before sharding. */
const putUnsharded = async (events: OutboundEvent[], now: number) => {
  for (let i = 0; i < events.length; i += 25) {
    const requests = events.slice(i, i + 25).map((event) => ({
      PutRequest: {
        Item: {
          pk: `EVENTLOG#${event.workspaceId}`,
          sk: `${event.occurredAt}#${event.id}`,
          type: 'EVENTLOG',
          event,
          ttl: Math.floor(now / 1000) + 3600,
        },
      },
    }));
    // One attempt: what comes back unprocessed is what the key refused (the proxy counts it).
    await getDocumentClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
  }
};
