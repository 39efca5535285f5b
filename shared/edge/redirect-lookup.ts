import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { createRedirectCache } from './redirect-cache';

/** This instance's cache of hot links' records (redirect-cache.ts: 2 s staleness bound, hot links only). */
const hotRecords = createRedirectCache<RedirectRecord>();

/**
 * The one DynamoDB read of a click: the slug item holds the denormalized redirect record,
 * written in the same transaction as every change to the link. An ordinary link is read on
 * every click (no staleness beyond DynamoDB's eventually consistent read); a link that is hot
 * in this instance is served from memory for at most 2 s (shared/edge/redirect-cache.ts).
 */
export const findRedirectRecord = (
  hostname: string,
  key: string,
  abortSignal?: AbortSignal,
): Promise<RedirectRecord | undefined> =>
  hotRecords.lookup(hostname, key, async () => {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.slug(hostname, key) }),
      { abortSignal },
    );
    return out.Item as RedirectRecord | undefined;
  });

/** For tests: forget every cached record and hotness count. */
export const clearRedirectCache = () => {
  hotRecords.clear();
};

/**
 * The record of a key on a resolved host. A removed domain (`domains remove`) keeps a retired
 * host record so its links answer with the domain's not-found answer, never the link.
 */
export const findRecordOnHost = (
  host: { hostname: string; retired?: boolean },
  key: string,
  abortSignal?: AbortSignal,
): Promise<RedirectRecord | undefined> =>
  host.retired ? Promise.resolve(undefined) : findRedirectRecord(host.hostname, key, abortSignal);
