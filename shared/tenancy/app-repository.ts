import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { notFound } from '@shared/errors/app-error';
import type { DeepLinkAppRecord } from './tenancy-types';
import { strip } from './workspace-repository';

export const appRepository = {
  async put(app: DeepLinkAppRecord): Promise<void> {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.app(app.workspaceId, app.id), type: 'APP', ...app },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },
  /** Replaces the settings of an existing app (never creates one). */
  async update(app: DeepLinkAppRecord): Promise<void> {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.app(app.workspaceId, app.id), type: 'APP', ...app },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  },
  async findById(workspaceId: string, appId: string): Promise<DeepLinkAppRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.app(workspaceId, appId) }),
    );
    return out.Item ? (strip(out.Item) as DeepLinkAppRecord) : undefined;
  },
  async getByIdOrThrow(workspaceId: string, appId: string): Promise<DeepLinkAppRecord> {
    const app = await this.findById(workspaceId, appId);
    if (!app) throw notFound('Deep-link app');
    return app;
  },
};
