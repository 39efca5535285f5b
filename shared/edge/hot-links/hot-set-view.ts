import { lookup } from 'node:dns';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { CloudFrontKeyValueStoreClient, DescribeKeyValueStoreCommand } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { KVS_STORE_MAX_BYTES, parseHotEntry } from './edge-answer';
import { readHotSetItem } from './hot-candidates';
import { createHotSetWriter } from './kvs-writer';

/** One hot link as the store holds it. */
export interface HotSetViewEntry {
  key: string;
  linkId: string | null;
  location: string | null;
  /** The link's version (its `updatedAt`) the entry was made from. */
  version: string | null;
  /** The link's expiry, or null when it has none (or the entry is malformed). */
  expiresAt: string | null;
  bytes: number;
}

export interface HotSetView {
  store: { arn: string; itemCount: number; totalSizeInBytes: number; quotaBytes: number; usedPercent: number };
  entries: HotSetViewEntry[];
  /** The last refresh as it recorded itself, with its age; null before the first one. */
  refresh: { at: string; ageSeconds: number; hot: number; puts: number; deletes: number } | null;
  /** Links nominated as newly hot, waiting for the next refresh. */
  candidates: number;
}

/**
 * The KeyValueStore client: the store's own endpoint (from its ARN) with the default credentials,
 * or `endpoint` (a local stand-in). The client puts the store's account id in front of the
 * endpoint's host (`{account}.{host}`), so with an endpoint every name under its host resolves to
 * that host's address.
 */
export const hotSetStoreClient = (endpoint?: string): CloudFrontKeyValueStoreClient => {
  if (!endpoint) return new CloudFrontKeyValueStoreClient({ region: 'us-east-1' });
  const host = new URL(endpoint).hostname;
  const toEndpointHost = ((name: string, options: object, callback: never) => {
    lookup(name.endsWith(`.${host}`) ? host : name, options, callback);
  }) as unknown as LookupFunction;
  return new CloudFrontKeyValueStoreClient({
    region: 'us-east-1',
    endpoint,
    requestHandler: new NodeHttpHandler({
      httpAgent: new Agent({ lookup: toEndpointHost }),
      httpsAgent: new HttpsAgent({ lookup: toEndpointHost }),
    }),
  });
};

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * What operators see of the hot set: every entry of the store (key, link, `Location`, version,
 * expiry), the store's size against its 5 MB quota (DescribeKeyValueStore) and the last refresh's
 * age (the hot-set item the refresh records itself in). Read-only.
 */
export const describeHotSet = async (
  client: CloudFrontKeyValueStoreClient,
  arn: string,
  now = new Date(),
): Promise<HotSetView> => {
  const [described, current, item] = await Promise.all([
    client.send(new DescribeKeyValueStoreCommand({ KvsARN: arn })),
    createHotSetWriter(client, arn).read(),
    readHotSetItem(),
  ]);
  const entries = [...current]
    .map(([key, value]): HotSetViewEntry => {
      const entry = parseHotEntry(value);
      return {
        key,
        linkId: entry?.i ?? null,
        location: entry?.l ?? null,
        version: entry?.v ?? null,
        expiresAt: entry?.e == null ? null : new Date(entry.e).toISOString(),
        bytes: bytes(key) + bytes(value),
      };
    })
    .sort((a, b) => a.key.localeCompare(b.key));
  const totalSizeInBytes = described.TotalSizeInBytes ?? entries.reduce((sum, e) => sum + e.bytes, 0);
  const last = item.lastRefresh;
  return {
    store: {
      arn,
      itemCount: described.ItemCount ?? entries.length,
      totalSizeInBytes,
      quotaBytes: KVS_STORE_MAX_BYTES,
      usedPercent: Math.round((totalSizeInBytes / KVS_STORE_MAX_BYTES) * 10_000) / 100,
    },
    entries,
    refresh: last
      ? {
          at: last.at,
          ageSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(last.at)) / 1000)),
          hot: last.hot,
          puts: last.puts,
          deletes: last.deletes,
        }
      : null,
    candidates: item.candidates.length,
  };
};
