/**
 * Where the admin CLI writes: the table `--table` names (else TABLE_NAME) at `--endpoint` (else
 * DYNAMODB_ENDPOINT; none: AWS with the usual credentials, BASE_URL and EDGE_URL = the stack
 * outputs), or with neither the running local stack (.local/stack.json). Resolved once, before
 * any command touches the table, into the configuration the repositories read and, for a local
 * lake, the local services (the event stream's stand-in, DuckDB): the CLI is its own composition
 * root and never writes the process environment.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AdminError } from '@shared/admin/admin-error';
import { localShortLinkEnv, parseConfig, provideConfig, type Config } from '@shared/config/config';
import { localServices } from '@shared/local/local-services';
import { localDir } from '@shared/local/paths';
import { provideServices } from '@shared/runtime/services';

/** The global flags that name the target (admin.ts). */
export interface AdminTargetOptions {
  table?: string;
  endpoint?: string;
}

export interface AdminTarget {
  baseUrl: string;
  edgeUrl: string;
  /** The local stack's state, when the CLI targets `npm start` rather than a deployed table. */
  local?: Record<string, string>;
  /** The configuration every repository and service of this run reads. */
  config: Config;
}

/** The target of this run, resolved on first call (commands that need none never resolve it). */
export type AdminTargetOf = () => AdminTarget;

const readStackState = (stackFile: string): Record<string, string> => {
  try {
    return JSON.parse(readFileSync(stackFile, 'utf8')) as Record<string, string>;
  } catch (error) {
    throw new AdminError(
      'not_configured',
      `${stackFile} is not the local stack's state (${(error as Error).message}): restart the stack with \`npm start\``,
    );
  }
};

/** The target from the flags, the (read-only) environment and the local stack's state; throws when there is nothing to target. */
export const resolveAdminTarget = (
  options: AdminTargetOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
  stackFile = path.join(localDir, 'stack.json'),
): AdminTarget => {
  let table = options.table ?? env.TABLE_NAME;
  let endpoint = options.endpoint ?? env.DYNAMODB_ENDPOINT;
  const local = !table && existsSync(stackFile) ? readStackState(stackFile) : undefined;
  if (local) {
    table = local.tableName;
    endpoint ??= local.dynamoEndpoint;
  }
  if (!table) {
    throw new AdminError(
      'not_configured',
      'No running local stack (start it with `npm start`) and no table named (--table, or TABLE_NAME; deployed: the stack output TableName).',
    );
  }
  // The short links the CLI writes (an imported link's default title) name the running edge, as the stack's do.
  const edgePort = local?.edgeUrl ? Number(new URL(local.edgeUrl).port || 80) : undefined;
  const config = parseConfig({
    ...env,
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: endpoint,
    // The local lake: LOCAL_LAKE_DIR, or the running local stack's unless LAKE_BUCKET names a deployed one.
    LOCAL_LAKE_DIR: env.LOCAL_LAKE_DIR ?? (env.LAKE_BUCKET ? undefined : local?.lakeDir),
    ...(edgePort === undefined ? {} : localShortLinkEnv(edgePort)),
  });
  return {
    baseUrl: env.BASE_URL || local?.baseUrl || '',
    edgeUrl: env.EDGE_URL || local?.edgeUrl || '',
    local,
    config,
  };
};

/**
 * The CLI's target, resolved once from the flags `options()` reads when first called: its
 * configuration is provided to the repositories, and the local services to the event sink and the
 * analytics engine (which still build the deployed ones when EVENTS_STREAM_NAME or Athena is set);
 * loopback webhook URLs are allowed only when the target is the local stack.
 */
export const adminTargetFrom = (options: () => AdminTargetOptions): AdminTargetOf => {
  let target: AdminTarget | undefined;
  return () => {
    if (!target) {
      target = resolveAdminTarget(options());
      provideConfig(target.config);
      provideServices({ ...localServices(), loopbackWebhooks: target.local !== undefined });
    }
    return target;
  };
};
