import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { EventRecord } from '@shared/events/event-record';

/**
 * The event send a click makes (Kinesis PutRecords to the event stream; before the stream,
 * Firehose PutRecordBatch) answers in typically 10-30 ms from a Lambda in the same region. The
 * fake answers after a delay drawn from a log-normal distribution with a 15 ms median (sigma
 * 0.3: p5 ~9 ms, p95 ~25 ms), so the warm bench's redirect would show the event send if the
 * visitor still waited for it.
 */
export const FAKE_STREAM_MEDIAN_MS = 15;
const SIGMA = 0.3;

/** One delay (ms) drawn around the median (Box-Muller normal, exponentiated). */
export const eventSendDelayMs = (random: () => number = Math.random): number => {
  const u = 1 - random();
  const v = random();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return FAKE_STREAM_MEDIAN_MS * Math.exp(SIGMA * normal);
};

export interface FakeEventStream {
  endpoint: string;
  /** Records accepted so far, and their bytes (the event lines, decoded). */
  records: number;
  bytes: number;
  stop(): Promise<void>;
}

export interface FakeEventStreamOptions {
  /**
   * Hands each accepted batch's events (the records' JSON lines, parsed) on, before the answer:
   * e.g. to the local stack's event stream, so that bundles, which carry only the deployed sink,
   * feed the local consumers as the real stream feeds the deployed ones.
   */
  forward?: (events: EventRecord[]) => Promise<void>;
}

/**
 * A loopback Kinesis Data Streams speaking the AWS JSON 1.1 wire format of PutRecords (what
 * `@aws-sdk/client-kinesis` sends): every record accepted, after `eventSendDelayMs()`. The bench
 * points a bundle's Kinesis client at it with AWS_ENDPOINT_URL_KINESIS.
 */
export const startFakeEventStream = async (options: FakeEventStreamOptions = {}): Promise<FakeEventStream> => {
  const state = { records: 0, bytes: 0, sequence: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Records?: Array<{ Data?: string }> };
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
        res.end(JSON.stringify(json));
      };
      if (target !== 'Kinesis_20131202.PutRecords') {
        reply(400, { __type: 'UnknownOperationException', message: `fake event stream: ${target} not supported` });
        return;
      }
      const records = body.Records ?? [];
      const forwarded = options.forward
        ? options.forward(
            records.map((r) => JSON.parse(Buffer.from(r.Data ?? '', 'base64').toString('utf8')) as EventRecord),
          )
        : Promise.resolve();
      setTimeout(() => {
        void forwarded.then(answer, (error: unknown) => {
          reply(500, { __type: 'InternalFailure', message: String(error) });
        });
      }, eventSendDelayMs());
      const answer = () => {
        state.records += records.length;
        state.bytes += records.reduce((n, r) => n + Buffer.from(r.Data ?? '', 'base64').length, 0);
        reply(200, {
          FailedRecordCount: 0,
          Records: records.map(() => ({
            SequenceNumber: String((state.sequence += 1)),
            ShardId: 'shardId-000000000000',
          })),
        });
      };
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get records() {
      return state.records;
    },
    get bytes() {
      return state.bytes;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};

/**
 * Runs `fn` with the bundles it imports sending their events to a fake event stream (Kinesis
 * PutRecords) that answers after a realistic delay (bench/fake-event-stream.ts), instead of the
 * local stream's file append: the figures then include (or, for the redirect's visitor, show
 * they no longer include) the event send.
 */
export const withFakeEventStream = async <T>(
  fn: (stream: FakeEventStream) => Promise<T>,
  options: FakeEventStreamOptions = {},
): Promise<T> => {
  const stream = await startFakeEventStream(options);
  const names = [
    'EVENTS_STREAM_NAME',
    'AWS_ENDPOINT_URL_KINESIS',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
  ] as const;
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  process.env.EVENTS_STREAM_NAME = 'bench-events';
  process.env.AWS_ENDPOINT_URL_KINESIS = stream.endpoint;
  process.env.AWS_ACCESS_KEY_ID ??= 'bench';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
  try {
    return await fn(stream);
  } finally {
    for (const n of names) {
      const value = saved[n];
      // Unset, not set to the string "undefined".
      if (value === undefined) Reflect.deleteProperty(process.env, n);
      else process.env[n] = value;
    }
    await stream.stop();
  }
};
