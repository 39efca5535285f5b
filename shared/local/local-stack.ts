import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { routeTable } from '@shared/routes/route-table';
import { handlerEntry, type RouteDef } from '@shared/routes/route-types';
import { createTableIfMissing } from './create-table';
import { EDGE_HOT_LINKS_ENV } from '@shared/edge/hot-links/hot-candidates';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { getEventSink } from '@shared/events/event-sink';
import { createLocalEventStream, drainEventStream, localStreamFailuresDir } from '@shared/events/local-event-stream';
import { localServices } from './local-services';
import { provideServices } from '@shared/runtime/services';
import { guardEventSink, installTableGrantGuard, routeContext } from './grant-guard';
import { createLocalApiServer, type LambdaHandler } from './local-server';
import { LocalInvocations } from './local-invocations';
import { consoleDistDir } from './console-build';
import { installAwsLambdaGlobal, invokeCollected, isStreamingHandler } from './lambda-streaming';
import { startLocalOutbound, type LocalOutbound } from './local-outbound';
import { startLocalEdgeHotLinks, type LocalEdgeHotLinks } from './local-edge-hot-links';
import { localDir, projectRoot } from './paths';
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '@shared/http/api-types';
import { ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import { useLocalShortLinks } from '@shared/config/config';

export interface LocalStackOptions {
  /** Service API port (0: any free port). */
  port?: number;
  /** Edge (short-link) port (0: any free port). */
  edgePort?: number;
  host?: string;
  /** Use a running DynamoDB (tests share one); otherwise DynamoDB Local is started. */
  dynamoEndpoint?: string;
  /** Persistent DynamoDB Local data folder; in-memory when omitted. */
  dbPath?: string;
  /** DynamoDB Local's port when it is started here (any free port when omitted). */
  dynamoPort?: number;
  /** Called with one line per request the two APIs answer (`npm start` prints them); none when omitted. */
  requestLog?: (line: string) => void;
  tableName?: string;
  lakeDir?: string;
  /**
   * Hot links answered by the local edge (the stand-in of the `edgeHotLinks` context; off by
   * default, as deployed): a local KeyValueStore API, the hot-set writer every minute, the
   * hot-link function in the front door and its log records counted (local-edge-hot-links.ts).
   */
  edgeHotLinks?: boolean;
}

export interface LocalStack {
  baseUrl: string;
  edgeUrl: string;
  /**
   * The edge origin reached directly, without the local front door: the stand-in for a request
   * straight to an edge function URL (no origin secret added), which the edge refuses with 403.
   */
  originUrl: string;
  tableName: string;
  dynamoEndpoint: string;
  lakeDir: string;
  dynamo?: DynamoDbLocal;
  /** The local event bus and webhook queue (docs/events.md). */
  outbound: LocalOutbound;
  /** Lambda's concurrency stand-in for both APIs (shared/local/local-invocations.ts). */
  invocations: LocalInvocations;
  /** Hot links at the local edge: only with `edgeHotLinks` on (the writer, `refreshHotSet()`, the store). */
  hotLinks?: LocalEdgeHotLinks;
  /**
   * Resolves once every invocation that has arrived, queued or running, has finished, work after
   * its response included (the edge records a click after answering the visitor), and the event
   * stream's consumer has counted every click sent (shared/events/local-event-stream.ts).
   */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

// The edge's handlers are RESPONSE_STREAM functions: the runtime's `awslambda` global must be
// there before their modules are imported.
installAwsLambdaGlobal();

const handlers = new Map<string, Promise<LambdaHandler>>();

/** Imports the same handler module the Lambda bundle is built from. */
export const loadHandler = (route: RouteDef): Promise<LambdaHandler> => {
  let loaded = handlers.get(route.handler);
  if (!loaded) {
    const file = pathToFileURL(path.join(projectRoot, handlerEntry(route))).href;
    // Each invocation runs in its route's context, so the local grant guards apply its IAM grants.
    loaded = import(file).then((m: { handler: unknown }): LambdaHandler => {
      const handler = m.handler;
      if (isStreamingHandler(handler)) {
        const streaming: LambdaHandler['streaming'] = (event, stream, context) =>
          routeContext.run(route, () => handler(event, stream, context));
        return Object.assign(
          (event: ApiEvent, context: Context) =>
            routeContext.run(route, () => invokeCollected(handler, event, context)),
          { streaming },
        );
      }
      const buffered = handler as LambdaHandler;
      return (event, context) => routeContext.run(route, () => buffered(event, context));
    });
    handlers.set(route.handler, loaded);
  }
  return loaded;
};

const listen = (server: Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve((server.address() as AddressInfo).port);
    });
  });

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });

/**
 * The whole product on one machine: DynamoDB Local, the table, the local event lake, and the
 * service and edge HTTP APIs invoking the real handlers. Sets the process environment the
 * handlers read their configuration from.
 */
export const startLocalStack = async (options: LocalStackOptions = {}): Promise<LocalStack> => {
  const host = options.host ?? '127.0.0.1';
  const dynamo = options.dynamoEndpoint
    ? undefined
    : await startDynamoDbLocal({ dbPath: options.dbPath, port: options.dynamoPort });
  const dynamoEndpoint = options.dynamoEndpoint ?? dynamo?.endpoint ?? '';
  const tableName = options.tableName ?? 'linkservice-local';
  const lakeDir = options.lakeDir ?? path.join(localDir, 'lake');

  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  process.env.LOCAL_LAKE_DIR = lakeDir;
  process.env.AWS_REGION ??= 'us-east-1';
  // As the stack sets it on the click counter consumer: it nominates links that turn hot.
  process.env[EDGE_HOT_LINKS_ENV] = options.edgeHotLinks ? 'true' : 'false';

  const admin = new DynamoDBClient({
    endpoint: dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let outbound: LocalOutbound;
  let hotLinks: LocalEdgeHotLinks | undefined;
  try {
    await createTableIfMissing(admin, tableName);
    hotLinks = options.edgeHotLinks
      ? await startLocalEdgeHotLinks({ failuresDir: localStreamFailuresDir(lakeDir) })
      : undefined;
    // The table stream's readers: the outbound publisher, and with hot links on the hot-set
    // writer's invalidations (deployed, a second event source mapping on the same stream).
    outbound = await startLocalOutbound({
      dynamo: admin,
      dynamoEndpoint,
      tableName,
      ...(hotLinks ? { alsoOnTableStream: hotLinks.invalidate } : {}),
    });
  } catch (error) {
    // A start that fails stops everything it started (no orphaned DynamoDB Local).
    await hotLinks?.stop();
    await dynamo?.stop();
    throw error;
  } finally {
    admin.destroy();
  }
  installTableGrantGuard(getDocumentClient());
  // This process's services: the event stream's stand-in over the lake folder (held to each
  // route's grants) and DuckDB over the same lake; the Lambda bundles build the deployed ones.
  provideServices(localServices({ eventSink: () => guardEventSink(createLocalEventStream(lakeDir)) }));

  // The edge sits behind a local front door (CloudFront's stand-in) with its own origin secret.
  const originSecret = randomBytes(24).toString('hex');
  process.env[ORIGIN_VERIFY_VALUES_ENV] = originSecret;
  // One process runs both APIs' invocations: one concurrency cap for both.
  const invocations = new LocalInvocations();
  const { requestLog } = options;
  const service = createLocalApiServer({
    api: 'service',
    routes: routeTable,
    loadHandler,
    invocations,
    requestLog,
    consoleDir: consoleDistDir,
  });
  const edge = createLocalApiServer({
    api: 'edge',
    routes: routeTable,
    loadHandler,
    frontDoor: { originSecret, ...(hotLinks ? { edgeFunction: hotLinks.answer } : {}) },
    invocations,
    requestLog,
  });
  // The same edge handlers with no front door: what a request that bypasses CloudFront reaches.
  const origin = createLocalApiServer({ api: 'edge', routes: routeTable, loadHandler, invocations, requestLog });
  let servicePort: number;
  let edgePort: number;
  let originPort: number;
  try {
    servicePort = await listen(service, options.port ?? 0, host);
    edgePort = await listen(edge, options.edgePort ?? 0, host);
    originPort = await listen(origin, 0, host);
  } catch (error) {
    // A start that fails stops everything it started (no orphaned DynamoDB Local).
    await Promise.all([service, edge, origin].filter((server) => server.listening).map(close));
    await hotLinks?.stop();
    await outbound.stop();
    await dynamo?.stop();
    throw error;
  }
  // Short links name this edge (plain HTTP on its port), so the ones the APIs answer with work here.
  useLocalShortLinks(edgePort);

  return {
    baseUrl: `http://${host}:${servicePort}`,
    edgeUrl: `http://${host}:${edgePort}`,
    originUrl: `http://${host}:${originPort}`,
    tableName,
    dynamoEndpoint,
    lakeDir,
    dynamo,
    outbound,
    invocations,
    ...(hotLinks ? { hotLinks } : {}),
    idle: async () => {
      await invocations.idle();
      await hotLinks?.drained();
      await drainEventStream(getEventSink());
    },
    stop: async () => {
      // No new requests; the invocations under way finish (each within its route's timeout)
      // before the table stream's consumer and DynamoDB Local go.
      await Promise.all([close(service), close(edge), close(origin)]);
      await invocations.idle();
      await hotLinks?.stop();
      await outbound.stop();
      await dynamo?.stop();
    },
  };
};
