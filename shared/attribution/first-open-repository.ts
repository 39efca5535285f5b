import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventRecord } from '@shared/events/event-record';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import type { ClientLinkPayload } from './client-link';
import type { MatchType } from './match-attribution';

/** The first open of one install id: written once, answered again on every repeat. */
export interface FirstOpenRecord {
  workspaceId: string;
  installId: string;
  openId: string;
  eventType: 'first_open' | 'install';
  matched: boolean;
  matchType: MatchType | null;
  deferredDeepLink: ClientLinkPayload | null;
  openedAt: string;
  /** The open's event until it reached the sink; a repeat re-sends it (same eventId = openId). */
  pendingEvent: EventRecord | null;
}

export const firstOpenRepository = {
  /**
   * Puts the record unless the install already has one; returns the stored one in that case
   * (undefined if it was erased between the refused put and the read).
   */
  async putIfNew(record: FirstOpenRecord): Promise<FirstOpenRecord | undefined> {
    try {
      await getDocumentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.firstOpen(record.workspaceId, record.installId), type: 'OPEN', ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return undefined;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      return await this.find(record.workspaceId, record.installId);
    }
  },

  async find(workspaceId: string, installId: string): Promise<FirstOpenRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.firstOpen(workspaceId, installId), ConsistentRead: true }),
    );
    return out.Item ? (strip(out.Item) as FirstOpenRecord) : undefined;
  },

  async markEventSent(workspaceId: string, installId: string): Promise<void> {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.firstOpen(workspaceId, installId),
        UpdateExpression: 'SET pendingEvent = :none',
        ExpressionAttributeValues: { ':none': null },
      }),
    );
  },
};
