import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { RedirectRecord } from '@shared/links/redirect-record';

/**
 * The one DynamoDB read of a click: the slug item holds the denormalized redirect record,
 * written in the same transaction as every change to the link (so no cache, no staleness
 * beyond DynamoDB's eventually consistent read).
 */
export const findRedirectRecord = async (hostname: string, key: string, abortSignal?: AbortSignal): Promise<RedirectRecord | undefined> => {
  const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.slug(hostname, key) }), { abortSignal });
  return out.Item as RedirectRecord | undefined;
};

/**
 * The record of a key on a resolved host. A removed domain (`domains remove`) keeps a retired
 * host record so its links answer with the domain's not-found answer, never the link.
 */
export const findRecordOnHost = (host: { hostname: string; retired?: boolean }, key: string, abortSignal?: AbortSignal): Promise<RedirectRecord | undefined> =>
  host.retired ? Promise.resolve(undefined) : findRedirectRecord(host.hostname, key, abortSignal);
