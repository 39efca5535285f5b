import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { DeliveryMessage, DeliveryQueue } from '@shared/outbound/delivery-queue';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import type { EventBus } from '@shared/outbound/event-bus';
import { localRetryDelaysMs, MAX_DELIVERY_ATTEMPTS } from '@shared/outbound/retry-schedule';
import { provideServices, resetServices } from '@shared/runtime/services';
import { outboundPublisherConsumer, webhookDeliveryConsumer } from '@shared/routes/consumer-specs';
import { log } from '@shared/util/logger';
import { projectRoot } from './paths';
import { createTableStreamReader } from './local-table-stream';
import { routeContext } from './route-context';
import { LOCAL_DYNAMODB_TIMEOUTS } from '@shared/db/dynamo-client';

/**
 * The outbound path on one machine, running the deployed functions' code:
 * - the table's stream (DynamoDB Local has streams), polled with the official streams client and
 *   handed to lambdas/outbound-publisher.ts as the Lambda event source mapping would;
 * - a stand-in for the EventBridge bus (kept in memory, one log line per event);
 * - a stand-in for the SQS queue and its dead-letter queue (receive counts, visibility timeouts,
 *   partial batch failures, maxReceiveCount), invoking lambdas/webhook-delivery.ts;
 * - retries on a schedule of seconds, and http://127.0.0.1 / http://localhost endpoints allowed.
 */
export interface LocalOutbound {
  busEvents: OutboundEvent[];
  deadLetters: DeliveryMessage[];
  /** Deliveries on the local queue, in flight or waiting for a retry. */
  pendingDeliveries(): number;
  stop(): Promise<void>;
}

const POLL_MS = 100;
const IDLE_POLL_MS = 200;
/** Visibility timeout of a received local message (the deployed queue's is 3 minutes). */
const LOCAL_VISIBILITY_MS = 5_000;
const BUS_MEMORY = 1000;

/** Turns on the table's stream (NEW_AND_OLD_IMAGES) when a table made before it lacks one; returns its ARN. */
export const ensureTableStream = async (client: DynamoDBClient, tableName: string): Promise<string> => {
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (described.Table?.StreamSpecification?.StreamEnabled && described.Table.LatestStreamArn)
    return described.Table.LatestStreamArn;
  const updated = await client.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  const arn = updated.TableDescription?.LatestStreamArn;
  if (!arn) throw new Error(`table ${tableName} has no stream after turning it on`);
  return arn;
};

/** A Lambda handler module's `handler`, as the local consumers call it. */
const importHandler = async (file: string): Promise<unknown> =>
  ((await import(pathToFileURL(path.join(projectRoot, file)).href)) as { handler: unknown }).handler;

interface LocalMessage {
  messageId: string;
  body: string;
  receiveCount: number;
  visibleAt: number;
  receiptHandle?: string;
  sentAt: number;
}

const createLocalQueue = (deadLetters: DeliveryMessage[]) => {
  const messages = new Map<string, LocalMessage>();
  const queue: DeliveryQueue & { receive(now: number): LocalMessage[]; remove(id: string): void; size(): number } = {
    size: () => messages.size,
    send(batch) {
      const now = Date.now();
      for (const message of batch) {
        const messageId = randomUUID();
        messages.set(messageId, {
          messageId,
          body: JSON.stringify(message),
          receiveCount: 0,
          visibleAt: now,
          sentAt: now,
        });
      }
      return Promise.resolve();
    },
    retryLater(receiptHandle, delayMs) {
      for (const m of messages.values()) if (m.receiptHandle === receiptHandle) m.visibleAt = Date.now() + delayMs;
      return Promise.resolve();
    },
    /** Up to 10 visible messages, as ReceiveMessage gives them; over maxReceiveCount goes to the DLQ. */
    receive(now) {
      const out: LocalMessage[] = [];
      for (const m of messages.values()) {
        if (out.length === 10) break;
        if (m.visibleAt > now) continue;
        if (m.receiveCount >= MAX_DELIVERY_ATTEMPTS) {
          messages.delete(m.messageId);
          deadLetters.push(JSON.parse(m.body) as DeliveryMessage);
          log('warn', 'local webhook delivery moved to the dead-letter queue', { messageId: m.messageId });
          continue;
        }
        m.receiveCount += 1;
        m.receiptHandle = randomUUID();
        m.visibleAt = now + LOCAL_VISIBILITY_MS;
        out.push(m);
      }
      return out;
    },
    remove(id) {
      messages.delete(id);
    },
  };
  return queue;
};

const sqsRecord = (m: LocalMessage): SQSRecord => ({
  messageId: m.messageId,
  receiptHandle: m.receiptHandle ?? '',
  body: m.body,
  attributes: {
    ApproximateReceiveCount: String(m.receiveCount),
    SentTimestamp: String(m.sentAt),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(m.sentAt),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-deliveries',
  awsRegion: 'local',
});

/** A loop that runs `tick` until stopped; `tick` answers how long to wait before the next one. */
const loop = (name: string, tick: () => Promise<number>) => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const next = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().then(
        (ms) => {
          next(ms);
        },
        (error: unknown) => {
          log('warn', `local ${name} poll failed`, { error: String(error) });
          next(1000);
        },
      );
    }, ms);
  };
  next(0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running.catch(() => undefined);
  };
};

export const startLocalOutbound = async (options: {
  dynamo: DynamoDBClient;
  dynamoEndpoint: string;
  tableName: string;
  /**
   * Another reader of the table's stream (deployed, its own event source mapping): handed each
   * batch after the publisher took it; its failure is logged, not retried (the hot-set writer's
   * invalidations: the next refresh re-plans every link in the store anyway).
   */
  alsoOnTableStream?: (records: readonly DynamoDBRecord[]) => Promise<unknown>;
}): Promise<LocalOutbound> => {
  const busEvents: OutboundEvent[] = [];
  const deadLetters: DeliveryMessage[] = [];
  const bus: EventBus = {
    put(events) {
      busEvents.push(...events);
      if (busEvents.length > BUS_MEMORY) busEvents.splice(0, busEvents.length - BUS_MEMORY);
      for (const e of events) log('info', 'local event bus', { id: e.id, type: e.type, workspaceId: e.workspaceId });
      return Promise.resolve();
    },
  };
  const queue = createLocalQueue(deadLetters);
  provideServices({ eventBus: bus, deliveryQueue: queue, retryDelaysMs: localRetryDelaysMs, loopbackWebhooks: true });

  const publish = (await importHandler('lambdas/outbound-publisher.ts')) as (
    event: DynamoDBStreamEvent,
  ) => Promise<DynamoDBBatchResponse>;
  const deliver = (await importHandler('lambdas/webhook-delivery.ts')) as (
    event: SQSEvent,
  ) => Promise<SQSBatchResponse>;

  // The stream, read as the event source mapping reads it (shared/local/local-table-stream.ts).
  const streamArn = await ensureTableStream(options.dynamo, options.tableName);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A call DynamoDB Local never answers ends, and the reader goes on (it would wait forever).
    requestHandler: { ...LOCAL_DYNAMODB_TIMEOUTS, throwOnRequestTimeout: true },
  });
  const reader = createTableStreamReader({
    streams,
    streamArn,
    // Each consumer runs under its own row's grants (the local grant guard), as its function deployed.
    handle: async (records) => {
      const result = await routeContext.run(outboundPublisherConsumer, () =>
        publish({ Records: records as unknown as DynamoDBRecord[] }),
      );
      const failed = result.batchItemFailures[0]?.itemIdentifier;
      if (failed === undefined && options.alsoOnTableStream) {
        await options.alsoOnTableStream(records as unknown as DynamoDBRecord[]).catch((error: unknown) => {
          log('error', 'local table stream reader failed', { error: String(error) });
        });
      }
      return failed;
    },
  });
  await reader.start();
  const stopStream = loop('stream', async () => ((await reader.poll()) ? POLL_MS : IDLE_POLL_MS));

  const stopQueue = loop('queue', async () => {
    const received = queue.receive(Date.now());
    if (received.length === 0) return POLL_MS;
    const result = await routeContext.run(webhookDeliveryConsumer, () => deliver({ Records: received.map(sqsRecord) }));
    const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
    for (const m of received) if (!failed.has(m.messageId)) queue.remove(m.messageId);
    return 0;
  });

  return {
    busEvents,
    deadLetters,
    pendingDeliveries: () => queue.size(),
    stop: async () => {
      await Promise.all([stopStream(), stopQueue()]);
      streams.destroy();
      resetServices('eventBus', 'deliveryQueue');
    },
  };
};
