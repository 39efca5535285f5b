/**
 * Where the admin CLI writes: the running local stack (.local/stack.json) or, deployed, the table
 * named by TABLE_NAME with the usual AWS credentials (BASE_URL and EDGE_URL = the stack outputs).
 * Read once, before any command touches the table.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AdminError } from '@shared/admin/admin-error';
import { useLocalShortLinks } from '@shared/config/config';
import { localDir } from '@shared/local/paths';

export interface AdminTarget {
  baseUrl: string;
  edgeUrl: string;
  /** The local stack's state, when the CLI targets `npm start` rather than a deployed table. */
  local?: Record<string, string>;
}

let target: AdminTarget | undefined;

/** Sets TABLE_NAME / DYNAMODB_ENDPOINT for the repositories; throws when there is nothing to target. */
export const adminTarget = (): AdminTarget => {
  if (target) return target;
  const stackFile = path.join(localDir, 'stack.json');
  let baseUrl = process.env.BASE_URL ?? '';
  let edgeUrl = process.env.EDGE_URL ?? '';
  let local: Record<string, string> | undefined;
  if (!process.env.TABLE_NAME && existsSync(stackFile)) {
    try {
      local = JSON.parse(readFileSync(stackFile, 'utf8')) as Record<string, string>;
    } catch (error) {
      throw new AdminError(
        'not_configured',
        `${stackFile} is not the local stack's state (${(error as Error).message}): restart the stack with \`npm start\``,
      );
    }
    process.env.TABLE_NAME = local.tableName;
    process.env.DYNAMODB_ENDPOINT = local.dynamoEndpoint;
    baseUrl ||= local.baseUrl ?? '';
    edgeUrl ||= local.edgeUrl ?? '';
    // The short links the CLI writes (an imported link's default title) name the running edge, as the stack's do.
    if (local.edgeUrl) useLocalShortLinks(Number(new URL(local.edgeUrl).port || 80));
  }
  if (!process.env.TABLE_NAME) {
    throw new AdminError(
      'not_configured',
      'No running local stack (start it with `npm start`) and no TABLE_NAME set (deployed: the stack output TableName).',
    );
  }
  target = { baseUrl, edgeUrl, local };
  return target;
};
