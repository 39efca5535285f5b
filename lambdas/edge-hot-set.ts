/**
 * The hot-link writer (only with the `edgeHotLinks` context on): the one function that writes the
 * edge's KeyValueStore, for two event shapes, one invocation at a time (reserved concurrency 1):
 * - EventBridge Scheduler, every minute: refreshes the store from the links' live counters and
 *   the nominated candidates (shared/edge/hot-links/refresh-hot-set.ts). Candidates beyond those
 *   come in the event (`{ "linkIds": [...] }`). A failed run throws (Lambda errors alarm); the
 *   next run starts from the store as it is.
 * - The table's stream (LINK items' MODIFY and REMOVE only, by the mapping's filter): re-plans
 *   the changed links that have an entry in the store (invalidate-hot-links.ts). A failed batch
 *   throws and is delivered again; the next refresh re-reads every link in the store anyway.
 */
import middy from '@middy/core';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import type { DynamoDBRecord } from 'aws-lambda';
import { invalidateHotLinks, type HotLinkInvalidationResult } from '@shared/edge/hot-links/invalidate-hot-links';
import { createHotSetWriter, HOT_LINKS_KVS_ARN_ENV } from '@shared/edge/hot-links/kvs-writer';
import { refreshHotSet, type HotSetRefresh } from '@shared/edge/hot-links/refresh-hot-set';
import { forgetServedEntries, recordServedEntries } from '@shared/edge/hot-links/served-history';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';

const kvsArn = process.env[HOT_LINKS_KVS_ARN_ENV] ?? '';
// The KeyValueStore API is global: the endpoint comes from the store's ARN; us-east-1 signs the
// SigV4a request with region set `*`. Each put is recorded with its time (HOTSERVED#): the
// real-time log consumer finds the destination an edge-answered click got.
const writer = createHotSetWriter(new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }), kvsArn, {
  recordServed: recordServedEntries,
  forgetServed: forgetServedEntries,
});

interface HotSetEvent {
  linkIds?: unknown;
  Records?: unknown;
}

const isStreamBatch = (event: HotSetEvent): event is { Records: DynamoDBRecord[] } =>
  Array.isArray(event.Records) &&
  event.Records.every((r) => (r as { eventSource?: unknown } | null)?.eventSource === 'aws:dynamodb');

const run = async (event: HotSetEvent | null | undefined): Promise<HotSetRefresh | HotLinkInvalidationResult> => {
  if (!kvsArn) throw new Error(`${HOT_LINKS_KVS_ARN_ENV} is not set`);
  if (event && isStreamBatch(event)) {
    const result = await invalidateHotLinks(writer, event.Records);
    if (result.replanned > 0) log('info', 'edge hot set: changed links re-planned', { ...result });
    return result;
  }
  const nominated = Array.isArray(event?.linkIds)
    ? event.linkIds.filter((id): id is string => typeof id === 'string')
    : [];
  const result = await refreshHotSet(writer, nominated);
  log('info', 'edge hot set refreshed', { ...result });
  return result;
};

export const handler = middy<HotSetEvent, HotSetRefresh | HotLinkInvalidationResult>(run).use(
  observabilityMiddlewares(),
);
