import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';
import { RATE_LIMIT_MAX } from '@shared/rate-limits/rate-limit-policy';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';

export interface BenchLink {
  id: string;
  key: string;
  domain: string;
}

/** One local stack (DynamoDB Local in memory, temp lake), one tenant, a short link and a deep link. */
export interface World {
  stack: LocalStack;
  tenant: BootstrapResult;
  link: BenchLink;
  deepLink: BenchLink;
  lakeDir: string;
}

const post = async (url: string, headers: Record<string, string>, json: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });
  const body = (await res.json()) as { data: BenchLink };
  if (res.status !== 201) throw new Error(`setup ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
};

/**
 * The load tests send far more than the default limits (3,000 server-key requests a minute):
 * the bench raises its own workspace's limits to the maximum with the admin command.
 */
const raiseRateLimits = async (stack: LocalStack, workspaceId: string) => {
  const max = String(RATE_LIMIT_MAX);
  await promisify(execFile)(
    path.join(projectRoot, 'node_modules', '.bin', 'tsx'),
    [
      'scripts/admin.ts',
      'set-rate-limits',
      workspaceId,
      '--server-per-minute',
      max,
      '--client-per-minute',
      max,
      '--legacy-per-minute',
      max,
      '--json',
    ],
    {
      cwd: projectRoot,
      env: {
        ...process.env,
        TABLE_NAME: stack.tableName,
        DYNAMODB_ENDPOINT: stack.dynamoEndpoint,
        LOG_LEVEL: 'silent',
      },
    },
  );
};

export const startWorld = async (): Promise<World> => {
  const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'bench-lake-'));
  const stack = await startLocalStack({ port: 0, edgePort: 0, tableName: 'bench', lakeDir });
  const tenant = await bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl, name: 'Bench' });
  await raiseRateLimits(stack, tenant.workspaceId);
  const auth = { 'api-key': tenant.serverKey };
  const link = await post(`${stack.baseUrl}/v1/links`, auth, {
    url: 'https://example.com/landing?utm_source=bench',
    domain: tenant.domain,
    title: 'Bench link',
    tags: ['bench'],
  });
  const deepLink = await post(`${stack.baseUrl}/v1/deep-links`, auth, { deepLinkAppId: tenant.deepLinkApp.id });
  return { stack, tenant, link: pick(link), deepLink: pick(deepLink), lakeDir };
};

const pick = (l: BenchLink): BenchLink => ({ id: l.id, key: l.key, domain: l.domain });
