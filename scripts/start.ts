/**
 * `npm start`: the product on this machine. DynamoDB Local (data kept under .local/), the
 * table, a demo tenant on first start (.local/credentials.json), the service API and the edge.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { scheduleLakeCompaction } from '@shared/analytics/compaction-schedule';
import { startLocalStack } from '@shared/local/local-stack';
import { localDir } from '@shared/local/paths';

const port = Number(process.env.PORT ?? 3000);
// PORT=0 asks the OS for free ports (tests: no race for a port picked in advance).
const edgePort = Number(process.env.EDGE_PORT ?? (port === 0 ? 0 : port + 1));
const host = process.env.HOST ?? '127.0.0.1';

mkdirSync(localDir, { recursive: true });
const stackFile = path.join(localDir, 'stack.json');
const credentialsFile = path.join(localDir, 'credentials.json');

const stack = await startLocalStack({ port, edgePort, host, dbPath: path.join(localDir, 'dynamodb-data') });
writeFileSync(
  stackFile,
  JSON.stringify(
    {
      baseUrl: stack.baseUrl,
      edgeUrl: stack.edgeUrl,
      dynamoEndpoint: stack.dynamoEndpoint,
      tableName: stack.tableName,
      lakeDir: stack.lakeDir,
      pid: process.pid,
    },
    null,
    2,
  ),
);

if (!existsSync(credentialsFile)) {
  try {
    const tenant = await bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl });
    writeFileSync(credentialsFile, JSON.stringify(tenant, null, 2));
  } catch (error) {
    // A start that fails stops everything it started.
    await stack.stop();
    rmSync(stackFile, { force: true });
    throw error;
  }
}
// The lake's closed hours move into Parquet as deployed (docs/analytics.md), here every 10 minutes.
const stopCompaction = scheduleLakeCompaction(stack.lakeDir);
const tenant = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { domain: string; serverKey: string };

console.log(`Link service running locally
  service API   ${stack.baseUrl}   (v1, legacy /api/mobile, OpenAPI at /v1/openapi.json)
  edge          ${stack.edgeUrl}   (short links: Host header = a link domain, e.g. ${tenant.domain})
  DynamoDB      ${stack.dynamoEndpoint}   table ${stack.tableName}, data in ${path.join(localDir, 'dynamodb-data')}
  event lake    ${stack.lakeDir}
  demo tenant   ${credentialsFile}
Try:
  curl -s -X POST ${stack.baseUrl}/v1/links -H 'api-key: ${tenant.serverKey}' -H 'content-type: application/json' \\
    -d '{"url":"https://example.com","domain":"${tenant.domain}"}'
Ctrl-C stops everything.`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping...');
  await stopCompaction();
  await stack.stop();
  rmSync(stackFile, { force: true });
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
