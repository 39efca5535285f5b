/**
 * `npm start`: the product on this machine. DynamoDB Local (data kept under .local/), the
 * table, a demo tenant on first start (.local/credentials.json), the service API and the edge.
 *
 * Stopping: SIGINT (Ctrl-C) and SIGTERM, sent to npm or to this process, stop everything it
 * started, DynamoDB Local's JVM included, before it exits. npm passes both signals on to its
 * script, and the script execs node (package.json), so no shell stands between npm and this
 * process to swallow them. If this process's parent goes away, it stops the same way; if this
 * process dies without stopping (SIGKILL), a watchdog stops the JVM (shared/local/dynamodb-local.ts).
 */
// First: the local logging settings must be in place before any module builds its logger or metrics.
import '@shared/local/local-logging';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { scheduleLakeCompaction } from '@shared/analytics/lake/compaction-schedule';
import { ensureConsoleBuilt } from '@shared/local/console-build';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';
import { localDir, projectRoot } from '@shared/local/paths';
import { firstPortInUse, portInUseMessage, PortInUseError, type NeededPort } from '@shared/local/ports';

/** A stop that takes longer than this exits anyway (the exit kills DynamoDB Local). */
const STOP_GRACE_MS = 20_000;

const fail = (message: string): never => {
  console.error(message);
  process.exit(1);
};

const portSetting = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? port
    : fail(`${name}=${raw} is not a port number (0-65535; 0 takes any free port).`);
};

// PORT=0 asks the OS for free ports (tests: no race for a port picked in advance).
const port = portSetting('PORT', 3000);
const edgePort = portSetting('EDGE_PORT', port === 0 ? 0 : port + 1);
// DynamoDB Local takes any free port unless DYNAMODB_PORT says which (it listens on every interface).
const dynamoPort = portSetting('DYNAMODB_PORT', 0) || undefined;
const host = process.env.HOST ?? '127.0.0.1';

const needed: NeededPort[] = [
  { port, setting: 'PORT', host },
  { port: edgePort, setting: 'EDGE_PORT', host },
  ...(dynamoPort ? [{ port: dynamoPort, setting: 'DYNAMODB_PORT', host: '0.0.0.0' }] : []),
];
const busy = await firstPortInUse(needed);
if (busy) fail(portInUseMessage(busy));

// The web console is served at /console/ on the service API: built here when missing or out of date.
ensureConsoleBuilt();

// Stop requests count from the moment the ports are checked: one that comes while the stack
// starts stops it once it has started (a half-started stack stops itself only on failure).
const control: { stopRequested: boolean; stop?: () => Promise<void>; stopCompaction?: () => Promise<void> } = {
  stopRequested: false,
};
const requestStop = () => {
  if (control.stopRequested) return;
  control.stopRequested = true;
  void control.stop?.();
};
process.on('SIGINT', requestStop);
process.on('SIGTERM', requestStop);
// npm (or the shell) gone: this process has been handed to another parent, and stops too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) requestStop();
}, 1000).unref();
// With the terminal or the parent gone, a write to stdout fails: the stop goes on regardless.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

/**
 * Whether the local edge answers hot links: EDGE_HOT_LINKS (`true`/`false`) when set, else the
 * deployed default, cdk.json's `edgeHotLinks` context (`cdk deploy` reads the same file).
 */
function localEdgeHotLinks(): boolean {
  const override = process.env.EDGE_HOT_LINKS;
  if (override === 'true' || override === 'false') return override === 'true';
  if (override !== undefined && override !== '') fail(`EDGE_HOT_LINKS must be true or false, got ${override}`);
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const value = cdkJson.context?.edgeHotLinks;
  return value === true || value === 'true';
}

mkdirSync(localDir, { recursive: true });
const stackFile = path.join(localDir, 'stack.json');
const credentialsFile = path.join(localDir, 'credentials.json');

let stack: LocalStack;
try {
  stack = await startLocalStack({
    port,
    edgePort,
    host,
    dbPath: path.join(localDir, 'dynamodb-data'),
    dynamoPort,
    // Hot links at the edge as deployed: cdk.json's `edgeHotLinks` (on), EDGE_HOT_LINKS=true|false to override.
    edgeHotLinks: localEdgeHotLinks(),
    requestLog: (line) => {
      console.log(line);
    },
  });
} catch (error) {
  // A start that fails has stopped what it started; a port taken meanwhile gets the same one line.
  if (error instanceof PortInUseError) fail(error.message);
  const { code, port: taken } = error as { code?: string; port?: number };
  const lost = code === 'EADDRINUSE' ? needed.find((n) => n.port === taken) : undefined;
  if (lost) fail(portInUseMessage(lost));
  throw error;
}
const running = stack;
let stopping: Promise<void> | undefined;
control.stop = () =>
  (stopping ??= (async () => {
    console.log('\nStopping...');
    setTimeout(() => fail(`Stopping took over ${STOP_GRACE_MS / 1000} s: exiting anyway.`), STOP_GRACE_MS).unref();
    await control.stopCompaction?.();
    await running.stop();
    rmSync(stackFile, { force: true });
    process.exit(0);
  })());
if (control.stopRequested) await control.stop();

writeFileSync(
  stackFile,
  JSON.stringify(
    {
      baseUrl: stack.baseUrl,
      edgeUrl: stack.edgeUrl,
      originUrl: stack.originUrl,
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
    // Stopped while the demo tenant was being made: the stop under way exits.
    if (control.stopRequested) await control.stop();
    // A start that fails stops everything it started.
    await stack.stop();
    rmSync(stackFile, { force: true });
    throw error;
  }
}
// The lake's closed hours move into Parquet as deployed (docs/analytics.md), here every 10 minutes.
control.stopCompaction = scheduleLakeCompaction(stack.lakeDir);
const tenant = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { domain: string; serverKey: string };
// The console's session cookie (`__Host-`) needs a secure context: browsers count localhost as
// one, not 127.0.0.1 over plain HTTP.
const consoleUrl = `${stack.baseUrl.replace('//127.0.0.1:', '//localhost:')}/console/`;

console.log(`Link service running locally
  service API   ${stack.baseUrl}   (v1, legacy /api/mobile, OpenAPI at /v1/openapi.json)
  web console   ${consoleUrl}   (sign in with the demo key ${tenant.serverKey})
  edge          ${stack.edgeUrl}   (short links: Host header = a link domain, e.g. ${tenant.domain})
  DynamoDB      ${stack.dynamoEndpoint}   table ${stack.tableName}, data in ${path.join(localDir, 'dynamodb-data')}
  event lake    ${stack.lakeDir}
  hot links     ${stack.hotLinks ? 'answered by the edge function once hot (the hot set refreshes every minute; EDGE_HOT_LINKS=false turns it off)' : 'off (EDGE_HOT_LINKS=false or cdk.json)'}
  demo tenant   ${credentialsFile}
  logs          one line per request, warnings and errors (LOG_LEVEL=info or debug shows more; debug adds metrics)
Try:
  curl -s -X POST ${stack.baseUrl}/v1/links -H 'api-key: ${tenant.serverKey}' -H 'content-type: application/json' \\
    -d '{"url":"https://example.com","domain":"${tenant.domain}"}'
Ctrl-C stops everything.`);
