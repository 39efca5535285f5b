// The CloudFront KeyValueStore API is signed with SigV4a only; the SDK's multi-region signer uses
// the CRT implementation when registered, else this pure-JavaScript one (no native module).
import '@aws-sdk/signature-v4a';
import {
  CloudFrontKeyValueStoreClient,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { log } from '@shared/util/logger';
import type { HotStoreEntry } from './hot-entry';
import type { HotSetChanges } from './hot-set';

/** The writer function's environment: the store's ARN. */
export const HOT_LINKS_KVS_ARN_ENV = 'HOT_LINKS_KVS_ARN';

/** UpdateKeys takes at most 50 puts and deletes together per call. */
export const UPDATE_KEYS_BATCH = 50;

export interface HotSetWriteResult {
  puts: number;
  deletes: number;
  batches: number;
  itemCount: number | undefined;
  totalSizeInBytes: number | undefined;
}

export interface HotSetWriter {
  /** The store's keys and values (ListKeys, every page). */
  read(): Promise<Map<string, string>>;
  /** Applies the changes: ETag from DescribeKeyValueStore, then UpdateKeys batches with IfMatch. */
  apply(changes: HotSetChanges): Promise<HotSetWriteResult>;
}

export interface HotSetWriterOptions {
  /**
   * Records the entries an `UpdateKeys` batch puts, with the time it is sent, before it is sent
   * (served-history.ts `recordServedEntries`): the real-time log consumer finds what a request
   * was served, and a record is there before any edge location can serve its entry. A failure is
   * logged and the batch still goes (the consumer then takes the link as it is).
   */
  recordServed?: (puts: readonly HotStoreEntry[], writtenAt: Date) => Promise<void>;
  /** Removes those records again when the batch failed (best effort): its entries were never served. */
  forgetServed?: (puts: readonly HotStoreEntry[], writtenAt: Date) => Promise<void>;
  /** The writer's clock (tests). */
  now?: () => Date;
}

/**
 * The one writer of the hot set's store. `PutKey`/`DeleteKey`/`UpdateKeys` need the store's
 * current ETag (`IfMatch`), so two writers would fail each other's updates: every read and write
 * of this writer runs one after another (a promise chain), the refresh and later the
 * invalidations alike. Each batch's response carries the next ETag.
 */
export const createHotSetWriter = (
  client: CloudFrontKeyValueStoreClient,
  kvsArn: string,
  options: HotSetWriterOptions = {},
): HotSetWriter => {
  const now = options.now ?? (() => new Date());
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const read = async (): Promise<Map<string, string>> => {
    const found = new Map<string, string>();
    let nextToken: string | undefined;
    do {
      const page = await client.send(new ListKeysCommand({ KvsARN: kvsArn, NextToken: nextToken, MaxResults: 50 }));
      for (const item of page.Items ?? []) if (item.Key !== undefined) found.set(item.Key, item.Value ?? '');
      nextToken = page.NextToken;
    } while (nextToken);
    return found;
  };

  const apply = async ({ puts, deletes }: HotSetChanges): Promise<HotSetWriteResult> => {
    const operations = [
      ...deletes.map((key) => ({ kind: 'delete' as const, key })),
      ...puts.map((entry) => ({ kind: 'put' as const, key: entry.key, value: entry.value, entry })),
    ];
    const described = await client.send(new DescribeKeyValueStoreCommand({ KvsARN: kvsArn }));
    let etag = described.ETag;
    let itemCount = described.ItemCount;
    let totalSizeInBytes = described.TotalSizeInBytes;
    let batches = 0;
    for (let i = 0; i < operations.length; i += UPDATE_KEYS_BATCH) {
      const batch = operations.slice(i, i + UPDATE_KEYS_BATCH);
      const batchPuts = batch.flatMap((op) => (op.kind === 'put' ? [{ Key: op.key, Value: op.value }] : []));
      const batchDeletes = batch.flatMap((op) => (op.kind === 'delete' ? [{ Key: op.key }] : []));
      const sentAt = now();
      const served = batch.flatMap((op) => (op.kind === 'put' ? [op.entry] : []));
      const recorded =
        options.recordServed && served.length > 0
          ? await options.recordServed(served, sentAt).then(
              () => true,
              (error: unknown) => {
                log('error', 'hot-set writes not recorded', { error: String(error), keys: served.map((p) => p.key) });
                return false;
              },
            )
          : false;
      let out;
      try {
        out = await client.send(
          new UpdateKeysCommand({
            KvsARN: kvsArn,
            IfMatch: etag,
            ...(batchPuts.length ? { Puts: batchPuts } : {}),
            ...(batchDeletes.length ? { Deletes: batchDeletes } : {}),
          }),
        );
      } catch (error) {
        if (recorded) await options.forgetServed?.(served, sentAt).catch(() => undefined);
        throw error;
      }
      etag = out.ETag;
      itemCount = out.ItemCount;
      totalSizeInBytes = out.TotalSizeInBytes;
      batches++;
    }
    return { puts: puts.length, deletes: deletes.length, batches, itemCount, totalSizeInBytes };
  };

  return {
    read: () => serialized(read),
    apply: (changes) => serialized(() => apply(changes)),
  };
};
