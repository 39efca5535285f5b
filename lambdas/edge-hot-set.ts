/**
 * The hot-link writer (EventBridge Scheduler, every minute; only with the `edgeHotLinks` context
 * on): refreshes the edge's KeyValueStore from the links' live counters through the one
 * serialized writer (shared/edge/hot-links/refresh-hot-set.ts). Candidates beyond the links
 * already hot come in the event (`{ "linkIds": [...] }`). A failed run throws (Lambda errors
 * alarm); the next run starts from the store as it is.
 */
import middy from '@middy/core';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
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
}

const refresh = async (event: HotSetEvent | null | undefined): Promise<HotSetRefresh> => {
  if (!kvsArn) throw new Error(`${HOT_LINKS_KVS_ARN_ENV} is not set`);
  const nominated = Array.isArray(event?.linkIds)
    ? event.linkIds.filter((id): id is string => typeof id === 'string')
    : [];
  const result = await refreshHotSet(writer, nominated);
  log('info', 'edge hot set refreshed', { ...result });
  return result;
};

export const handler = middy<HotSetEvent, HotSetRefresh>(refresh).use(observabilityMiddlewares());
