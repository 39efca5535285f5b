import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { ApiKeyRecord } from './credential';
import { normalizeOrigin } from './publishable-restrictions';

/**
 * The origin index: one item per (origin, browser key), written with the key. A CORS preflight
 * carries no key, so it can only ask "does some browser key allow this origin?".
 */
export const browserOriginItems = (record: ApiKeyRecord) =>
  record.kind === 'publishable' && record.publishable?.platform === 'browser'
    ? [...new Set(record.publishable.origins.map(normalizeOrigin).filter((o): o is string => o !== undefined))].map(
        (origin) => ({
          ...keys.browserOrigin(origin, record.keyHash),
          type: 'ORIGIN',
          origin,
          workspaceId: record.workspaceId,
        }),
      )
    : [];

export const isKnownBrowserOrigin = async (origin: string): Promise<boolean> => {
  const out = await getDocumentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.browserOriginsOf(origin).pk },
      Limit: 1,
    }),
  );
  return (out.Items?.length ?? 0) > 0;
};
