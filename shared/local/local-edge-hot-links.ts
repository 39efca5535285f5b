import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { hotLinkFunctionCode } from '@lib/front-door/hot-link-function-code';
import { convertEdgeClickLogs, type EdgeClickLogRecord } from '@shared/edge/hot-links/edge-click-events';
import {
  isFunctionResponse,
  LocalKeyValueStore,
  runHotLinkFunction,
  type SandboxRequest,
} from '@shared/edge/hot-links/function-sandbox';
import { invalidateHotLinks, type HotLinkInvalidationResult } from '@shared/edge/hot-links/invalidate-hot-links';
import { createHotSetWriter, type HotSetWriter } from '@shared/edge/hot-links/kvs-writer';
import { FUNCTION_GENERATED_RESPONSE, formatRealtimeLogLine } from '@shared/edge/hot-links/realtime-log';
import { refreshHotSet, type HotSetRefresh } from '@shared/edge/hot-links/refresh-hot-set';
import { forgetServedEntries, recordServedEntries } from '@shared/edge/hot-links/served-history';
import { getEventSink } from '@shared/events/event-sink';
import { keptKinesisFailure } from '@shared/events/kept-failure-record';
import type { ApiResult } from '@shared/http/api-types';
import { parseViewerAddress } from '@shared/http/trusted-viewer';
import { edgeClickLogsConsumer, edgeHotSetConsumer } from '@shared/routes/consumer-specs';
import { log } from '@shared/util/logger';
import { retry } from '@shared/util/retry';
import { localKvsClient, startLocalKvs, type LocalKvs } from './local-kvs-server';
import type { EdgeFunctionRequest } from './local-server';
import { routeContext } from './route-context';

/** The local hot-set refresh runs this often (the deployed schedule's rate). */
export const LOCAL_HOT_SET_INTERVAL_MS = 60_000;

/**
 * A failed log record is tried this many times in all, backing off, before it is given up: kept
 * in the failures folder when there is one (as the deployed mapping keeps a batch at 20 h), else
 * logged and dropped.
 */
const LOCAL_CLICK_LOG_ATTEMPTS = 8;

const LOCAL_LOG_STREAM_ARN = 'arn:aws:kinesis:local:000000000000:stream/local-edge-click-logs';
/** The local log stream's one shard (one per process, as the local event stream's). */
const LOCAL_LOG_SHARD = `shardId-local-edge-${String(process.pid)}`;

/** What the local front door asks the edge function: the viewer's request as CloudFront sees it. */
export type EdgeViewerRequest = EdgeFunctionRequest;

export interface LocalEdgeHotLinks {
  /** The store: the local KeyValueStore API writes it, the sandboxed function reads it. */
  store: LocalKeyValueStore;
  kvs: LocalKvs;
  /** The one serialized writer (the official client against the local KeyValueStore API). */
  writer: HotSetWriter;
  /** One refresh now (the nominated ids, as the schedule's event carries them). */
  refreshHotSet(linkIds?: readonly string[]): Promise<HotSetRefresh>;
  /** The writer's invalidations for one batch of the table's stream (changed links leave the store). */
  invalidate: (records: readonly DynamoDBRecord[]) => Promise<HotLinkInvalidationResult>;
  /**
   * Runs the hot-link function (the deployed code, in the sandbox) on a viewer request: its
   * response when it answered (and the real-time log record is written), else null.
   */
  answer: (request: EdgeViewerRequest) => Promise<ApiResult | null>;
  /** Log records the function answered, as the stand-in of the real-time log stream: one line each. */
  logLines(): readonly string[];
  /** Delivers log records again (the stream's at-least-once delivery, a replay): counted once. */
  redeliver(lines: readonly string[]): void;
  /** Resolves once every log record written so far has been converted (its events sent). */
  drained(): Promise<void>;
  stop(): Promise<void>;
}

/** A CloudFront request id: 56 characters of base64 (the shape of `x-amz-cf-id`). */
const edgeRequestId = (): string => randomBytes(42).toString('base64');

/**
 * The local stand-in of hot links at the edge (`edgeHotLinks` on): a local KeyValueStore API
 * over the sandbox's store, the hot-set writer refreshing it every minute (and on demand), the
 * hot-link function run by the local front door, and its real-time log records converted by the
 * same consumer code as deployed (`convertEdgeClickLogs`, held to `edgeClickLogsConsumer`'s
 * grants), into the same event sink the origin's clicks go to.
 */
export const startLocalEdgeHotLinks = async (
  options: {
    intervalMs?: number;
    /**
     * Where the log records the consumer gave up on are kept, in the document Lambda writes to the
     * deployed S3 on-failure destination (`admin replay-stream-failures --dir` replays them);
     * without it they are logged and dropped.
     */
    failuresDir?: string;
    /** Tries of a failing log record in all (default 8, backing off from 100 ms). */
    clickLogAttempts?: number;
  } = {},
): Promise<LocalEdgeHotLinks> => {
  const store = new LocalKeyValueStore();
  const kvs = await startLocalKvs(undefined, store);
  const client = localKvsClient(kvs);
  const writer = createHotSetWriter(client, kvs.arn, {
    recordServed: (puts, at) => routeContext.run(edgeHotSetConsumer, () => recordServedEntries(puts, at)),
    forgetServed: (puts, at) => routeContext.run(edgeHotSetConsumer, () => forgetServedEntries(puts, at)),
  });
  const refresh = (linkIds: readonly string[] = []) =>
    routeContext.run(edgeHotSetConsumer, () => refreshHotSet(writer, [...linkIds]));
  const timer = setInterval(() => {
    refresh().catch((error: unknown) => {
      log('error', 'local edge hot set not refreshed', { error: String(error) });
    });
  }, options.intervalMs ?? LOCAL_HOT_SET_INTERVAL_MS);
  timer.unref();

  // The real-time log stream's stand-in: records in order, converted in batches of whatever
  // arrived while the previous batch ran; a failed record is delivered again (backing off).
  const lines: string[] = [];
  const queue: EdgeClickLogRecord[] = [];
  const failures = options.failuresDir === undefined ? undefined : createLocalLakeStore(options.failuresDir);
  /** A log record as the deployed mapping hands it to Lambda (and keeps it in a failure). */
  const logStreamRecord = (record: EdgeClickLogRecord): KinesisStreamRecord => ({
    eventSource: 'aws:kinesis',
    eventID: `${LOCAL_LOG_SHARD}:${record.id}`,
    eventName: 'aws:kinesis:record',
    eventVersion: '1.0',
    invokeIdentityArn: 'arn:aws:iam::000000000000:role/local',
    awsRegion: 'local',
    eventSourceARN: LOCAL_LOG_STREAM_ARN,
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: record.id,
      sequenceNumber: record.id,
      data: Buffer.from(record.data).toString('base64'),
      approximateArrivalTimestamp: Date.now() / 1000,
    },
  });
  let sequence = 0;
  let pumping: Promise<void> | undefined;
  /** One batch through the consumer's code; its failed records are sent again (the one retry helper), then dropped. */
  const convertBatch = async (batch: readonly EdgeClickLogRecord[]) => {
    let pending = batch;
    try {
      await retry(
        async () => {
          const result = await routeContext.run(edgeClickLogsConsumer, () =>
            convertEdgeClickLogs(pending, (events) => getEventSink().send(events)),
          );
          pending = pending.filter((r) => result.failed.includes(r.id));
          if (pending.length > 0) throw new Error(`${String(pending.length)} edge click log records failed`);
        },
        {
          attempts: options.clickLogAttempts ?? LOCAL_CLICK_LOG_ATTEMPTS,
          retryOn: () => true,
          pause: (attempt) => delay(50 * 2 ** attempt),
        },
      );
    } catch (error) {
      if (failures) {
        const now = new Date();
        const doc = keptKinesisFailure(
          pending.map(logStreamRecord),
          LOCAL_LOG_STREAM_ARN,
          'RetryAttemptsExhausted',
          now,
        );
        await failures.putText(
          `aws/lambda/local-edge-click-logs/${LOCAL_LOG_SHARD}/${now.toISOString().slice(0, 10).replaceAll('-', '/')}/${now.toISOString()}-${randomUUID()}`,
          JSON.stringify(doc),
        );
        log('error', 'local edge click log records kept as a failure', {
          error: String(error),
          records: pending.length,
        });
        return;
      }
      log('error', 'local edge click log records dropped', {
        error: String(error),
        records: pending.map((r) => r.data),
      });
    }
  };
  const pump = async () => {
    while (queue.length > 0) await convertBatch(queue.splice(0, queue.length));
  };
  const deliver = (line: string) => {
    queue.push({ id: String(++sequence), data: `${line}\n` });
    pumping ??= pump().finally(() => {
      pumping = undefined;
    });
  };
  const put = (line: string) => {
    lines.push(line);
    deliver(line);
  };

  const answer = async (request: EdgeViewerRequest): Promise<ApiResult | null> => {
    // The local edge's port stands for CloudFront's 443: the viewer's Host as CloudFront sees it.
    const headers = { ...request.headers };
    if (headers.host !== undefined) headers.host = headers.host.replace(/:\d+$/, '');
    const viewer: SandboxRequest = {
      method: request.method,
      uri: request.path,
      querystring: Object.fromEntries([...request.query].map(([k, v]) => [k, { value: v }])),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { value: v }])),
      cookies: {},
    };
    const result = await runHotLinkFunction(hotLinkFunctionCode(), viewer, store);
    if (!isFunctionResponse(result)) return null;
    const answerHeaders = Object.fromEntries(Object.entries(result.headers).map(([k, v]) => [k, v.value]));
    const query = request.query.toString();
    put(
      formatRealtimeLogLine({
        timestamp: (Date.now() / 1000).toFixed(3),
        'c-ip': parseViewerAddress(request.headers['cloudfront-viewer-address']) ?? request.sourceIp,
        'cs-method': request.method,
        'cs-host': headers.host ?? null,
        'x-host-header': 'local.cloudfront.net',
        // As CloudFront logs it in real time: the path with its query string.
        'cs-uri-stem': query === '' ? request.path : `${request.path}?${query}`,
        'cs-uri-query': query === '' ? null : query,
        'cs-user-agent': request.headers['user-agent'] ?? null,
        'cs-referer': request.headers.referer ?? null,
        // CloudFront's geolocation: locally, the header a test sends (as the front door passes it on).
        'c-country': request.headers['cloudfront-viewer-country'] ?? null,
        'x-edge-request-id': edgeRequestId(),
        'x-edge-result-type': FUNCTION_GENERATED_RESPONSE,
        'x-edge-detailed-result-type': FUNCTION_GENERATED_RESPONSE,
        'sc-status': String(result.statusCode),
        'cache-behavior-path-pattern': '*',
      }),
    );
    return { statusCode: result.statusCode, headers: answerHeaders };
  };

  return {
    store,
    kvs,
    writer,
    refreshHotSet: refresh,
    invalidate: (records) => routeContext.run(edgeHotSetConsumer, () => invalidateHotLinks(writer, records)),
    answer,
    logLines: () => lines,
    redeliver: (again) => {
      for (const line of again) deliver(line);
    },
    drained: async () => {
      while (pumping) await pumping;
    },
    stop: async () => {
      clearInterval(timer);
      while (pumping) await pumping;
      client.destroy();
      await kvs.stop();
    },
  };
};
