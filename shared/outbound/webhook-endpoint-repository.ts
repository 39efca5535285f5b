import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import type { OutboundEventType } from './event-catalogue';

/** One webhook endpoint of a workspace (item WEBHOOKS#ws / WEBHOOK#id). */
export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  events: OutboundEventType[];
  enabled: boolean;
  /** Standard Webhooks `whsec_<base64>`; shown once by the admin CLI. */
  secret: string;
  /** After a rotation: the old secret, still signed with until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The endpoint as `webhooks list` shows it: never its secrets. */
export const toEndpointView = ({ secret: _s, previousSecret: _p, ...rest }: WebhookEndpoint) => rest;

export const webhookEndpointRepository = {
  /** `alongside` (such as the change's audit entry), here and below, joins the change's transaction. */
  async create(endpoint: WebhookEndpoint, alongside: Record<string, unknown>[] = []): Promise<void> {
    const put = {
      TableName: tableName(),
      Item: {
        ...keys.webhookEndpoint(endpoint.workspaceId, endpoint.id),
        ...keys.webhookEndpointLookup(endpoint.id),
        type: 'WEBHOOK',
        ...endpoint,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    if (alongside.length === 0) await getDocumentClient().send(new PutCommand(put));
    else await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put }, ...alongside] }));
  },

  async find(workspaceId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.webhookEndpoint(workspaceId, endpointId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? (strip(out.Item) as WebhookEndpoint) : undefined;
  },

  /** By endpoint id alone (admin CLI): gsi1 gives the key, then a consistent read. */
  async findById(endpointId: string): Promise<WebhookEndpoint | undefined> {
    const lookup = keys.webhookEndpointLookup(endpointId);
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': lookup.gsi1pk, ':sk': lookup.gsi1sk },
      }),
    );
    const item = out.Items?.[0];
    if (!item) return undefined;
    const workspaceId = String(item.pk).slice('WEBHOOKS#'.length);
    return this.find(workspaceId, endpointId);
  },

  async listByWorkspace(workspaceId: string): Promise<WebhookEndpoint[]> {
    const { pk, skPrefix } = keys.webhookEndpointsOf(workspaceId);
    const endpoints: WebhookEndpoint[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
          ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
          ExclusiveStartKey: start,
        }),
      );
      endpoints.push(...(out.Items ?? []).map((item) => strip(item) as WebhookEndpoint));
      start = out.LastEvaluatedKey;
    } while (start);
    return endpoints;
  },

  async remove(endpoint: WebhookEndpoint, alongside: Record<string, unknown>[] = []): Promise<void> {
    const Key = keys.webhookEndpoint(endpoint.workspaceId, endpoint.id);
    if (alongside.length === 0) {
      await getDocumentClient().send(new DeleteCommand({ TableName: tableName(), Key }));
      return;
    }
    // With an entry, the endpoint must still be there: no entry for a removal that removed nothing.
    const remove = { TableName: tableName(), Key, ConditionExpression: 'attribute_exists(pk)' };
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [{ Delete: remove }, ...alongside] }));
  },

  /** New secret; the old one keeps signing (second signature) until `previousExpiresAt`. */
  async rotateSecret(
    endpoint: WebhookEndpoint,
    secret: string,
    previousExpiresAt: string,
    now: string,
    alongside: Record<string, unknown>[] = [],
  ): Promise<void> {
    const update = {
      TableName: tableName(),
      Key: keys.webhookEndpoint(endpoint.workspaceId, endpoint.id),
      UpdateExpression: 'SET secret = :s, previousSecret = :p, previousSecretExpiresAt = :e, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND secret = :old',
      ExpressionAttributeValues: {
        ':s': secret,
        ':p': endpoint.secret,
        ':e': previousExpiresAt,
        ':now': now,
        ':old': endpoint.secret,
      },
    };
    if (alongside.length === 0) await getDocumentClient().send(new UpdateCommand(update));
    else
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...alongside] }));
  },

  /** An endpoint answering 410 Gone: no more deliveries (the delivery function may only do this). */
  async disable(workspaceId: string, endpointId: string, reason: string, now: string): Promise<void> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookEndpoint(workspaceId, endpointId),
          UpdateExpression: 'SET enabled = :f, disabledAt = :now, disabledReason = :r',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':f': false, ':now': now, ':r': reason },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  },
};
