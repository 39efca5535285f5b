import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { WorkspaceRecord } from './tenancy-types';

export const workspaceRepository = {
  async put(workspace: WorkspaceRecord): Promise<void> {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.workspace(workspace.id), type: 'WORKSPACE', ...workspace },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },
  async findById(workspaceId: string): Promise<WorkspaceRecord | undefined> {
    const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.workspace(workspaceId) }));
    return out.Item ? strip<WorkspaceRecord>(out.Item) : undefined;
  },
};

/** Removes the table's own attributes (keys, type tag) from a stored item. */
export const strip = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, gsi3pk: _e, gsi3sk: _f, ...rest } = item;
  return rest as T;
};
