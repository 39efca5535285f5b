import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
  async findById(workspaceId: string, consistent = false): Promise<WorkspaceRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.workspace(workspaceId), ConsistentRead: consistent }),
    );
    return out.Item ? (strip(out.Item) as WorkspaceRecord) : undefined;
  },
  /**
   * Sets the given per-minute limits, leaving the others as they are (field-level SETs: two
   * operators setting different limits at once both win). Throws ConditionalCheckFailed when
   * the workspace does not exist. Returns what is stored after. `alongside` (such as the change's
   * audit entry) is written in one transaction with the limits' SETs.
   */
  async setRateLimits(
    workspaceId: string,
    changes: NonNullable<WorkspaceRecord['rateLimits']>,
    alongside: Record<string, unknown>[] = [],
  ): Promise<WorkspaceRecord['rateLimits']> {
    const client = getDocumentClient();
    const Key = keys.workspace(workspaceId);
    await client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET rateLimits = if_not_exists(rateLimits, :empty)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    // A caller may pass a limit as undefined (not given): only the given ones are set.
    const given: Array<[string, number | undefined]> = Object.entries(changes);
    const fields = given.filter(([, v]) => v !== undefined);
    if (fields.length === 0) return (await this.findById(workspaceId, true))?.rateLimits;
    const update = {
      TableName: tableName(),
      Key,
      UpdateExpression: `SET ${fields.map((_, i) => `rateLimits.#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(fields.map(([f], i) => [`#f${i}`, f])),
      ExpressionAttributeValues: Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])),
    };
    if (alongside.length > 0) {
      await client.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...alongside] }));
      return (await this.findById(workspaceId, true))?.rateLimits;
    }
    const out = await client.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return out.Attributes?.rateLimits as WorkspaceRecord['rateLimits'];
  },
};

/**
 * Removes the table's own attributes (keys, type tag) from a stored item; the caller names the
 * record it reads (`strip(item) as LinkRecord`).
 */
export const strip = (item: Record<string, unknown>): object => {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    ttl: _ttl,
    gsi1pk: _a,
    gsi1sk: _b,
    gsi2pk: _c,
    gsi2sk: _d,
    gsi3pk: _e,
    gsi3sk: _f,
    ...rest
  } = item;
  return rest;
};
