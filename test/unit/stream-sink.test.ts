import { Readable } from 'node:stream';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '@test/support/log-capture';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import type { PutRecordsInput } from '@shared/events/kinesis-client';
import {
  backoffDelay,
  createStreamSink,
  LAKE_ONLY_PARTITION_PREFIX,
  reportUndelivered,
  streamLimits,
  type UndeliveredEvents,
} from '@shared/events/stream-sink';

/** What the SDK put on the wire for one PutRecords call, decoded. */
interface CapturedCall {
  target: string;
  stream: string;
  lines: string[];
  partitionKeys: string[];
  bytes: number;
}

type Reply = { status: number; json: unknown; errorType?: string };

/**
 * A real KinesisClient whose HTTP handler is replaced: each call's serialized request is
 * captured and answered by `reply` (no network). Serialization and deserialization are the SDK's.
 */
const stubbedClient = (reply: (call: CapturedCall, index: number) => Reply) => {
  const calls: CapturedCall[] = [];
  const client = new KinesisClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler: {
      handle: (request: { headers: Record<string, string>; body: string | Uint8Array }) => {
        const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        const parsed = JSON.parse(text) as {
          StreamName: string;
          Records: Array<{ Data: string; PartitionKey: string }>;
        };
        const lines = parsed.Records.map((r) => Buffer.from(r.Data, 'base64').toString('utf8'));
        const call: CapturedCall = {
          target: request.headers['x-amz-target']!,
          stream: parsed.StreamName,
          lines,
          partitionKeys: parsed.Records.map((r) => r.PartitionKey),
          bytes:
            lines.reduce((n, l) => n + Buffer.byteLength(l), 0) +
            parsed.Records.reduce((n, r) => n + r.PartitionKey.length, 0),
        };
        calls.push(call);
        const r = reply(call, calls.length - 1);
        const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.1' };
        if (r.errorType) headers['x-amzn-errortype'] = r.errorType;
        return Promise.resolve({
          response: { statusCode: r.status, headers, body: Readable.from([Buffer.from(JSON.stringify(r.json))]) },
        });
      },
    } as never,
  });
  // The sink's transport over the SDK client: serialization and errors are the SDK's.
  return { client: (input: PutRecordsInput) => client.send(new PutRecordsCommand(input)), calls };
};

const ok = (call: CapturedCall): Reply => ({
  status: 200,
  json: {
    FailedRecordCount: 0,
    Records: call.lines.map((_, i) => ({ SequenceNumber: String(1000 + i), ShardId: 'shardId-000000000000' })),
  },
});

const event = (n: number, pad = 0): EventRecord => ({
  ...blankEvent({
    eventId: `evt-${n}`,
    timestamp: '2026-01-02T03:04:05.000Z',
    eventType: 'customer_event',
    workspaceId: 'ws_1',
    trafficType: 'human',
  }),
  properties: pad ? JSON.stringify({ pad: 'x'.repeat(pad) }) : null,
});

const collect = () => {
  const undelivered: UndeliveredEvents[] = [];
  const sleeps: number[] = [];
  return {
    undelivered,
    sleeps,
    options: {
      onUndelivered: (u: UndeliveredEvents) => undelivered.push(u),
      sleep: (ms: number) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
    },
  };
};

const delivered = (calls: CapturedCall[], accepted: (call: CapturedCall, i: number) => boolean[]) =>
  calls
    .flatMap((call, i) => call.lines.filter((_, j) => accepted(call, i)[j]))
    .map((l) => JSON.parse(l).eventId as string);

describe('event stream sink (real Kinesis SDK request shapes, no network)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('sends each event as one JSON line ending in a newline, in PutRecords calls to the stream, each with its own random partition key', async () => {
    const { client, calls } = stubbedClient(ok);
    const c = collect();
    await createStreamSink({ putRecords: client, streamName: 'events-stream', ...c.options }).send([
      event(1),
      event(2),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.target).toBe('Kinesis_20131202.PutRecords');
    expect(calls[0]!.stream).toBe('events-stream');
    // Random keys spread one hot link's clicks over every shard.
    expect(new Set(calls[0]!.partitionKeys).size).toBe(2);
    for (const key of calls[0]!.partitionKeys) expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(calls[0]!.lines.map((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1)).toEqual([true, true]);
    expect(JSON.parse(calls[0]!.lines[0]!)).toEqual(event(1));
    expect(c.undelivered).toEqual([]);
  });

  it('splits 1,234 events into calls of at most 500 records, and large events into calls under 5 MiB', async () => {
    const small = stubbedClient(ok);
    await createStreamSink({ putRecords: small.client, streamName: 's', ...collect().options }).send(
      Array.from({ length: 1234 }, (_, i) => event(i)),
    );
    expect(small.calls.map((c) => c.lines.length)).toEqual([500, 500, 234]);
    expect(small.calls.flatMap((c) => c.lines.map((l) => JSON.parse(l).eventId))).toEqual(
      Array.from({ length: 1234 }, (_, i) => `evt-${i}`),
    );

    const large = stubbedClient(ok);
    await createStreamSink({ putRecords: large.client, streamName: 's', ...collect().options }).send(
      Array.from({ length: 30 }, (_, i) => event(i, 300 * 1024)),
    );
    expect(large.calls.length).toBeGreaterThan(1);
    for (const call of large.calls) expect(call.bytes).toBeLessThanOrEqual(streamLimits.bytesPerCall);
    expect(large.calls.reduce((n, c) => n + c.lines.length, 0)).toBe(30);
  });

  it('retries only the records a partial failure names, with growing backoff, until all are in', async () => {
    // Attempt 1: every third record fails; attempt 2: the first of the retried fails again; attempt 3: all in.
    const failures = (call: CapturedCall, i: number) =>
      call.lines.map((_, j) => (i === 0 ? j % 3 === 0 : i === 1 ? j === 0 : false));
    const { client, calls } = stubbedClient((call, i) => {
      const failed = failures(call, i);
      return {
        status: 200,
        json: {
          FailedRecordCount: failed.filter(Boolean).length,
          Records: failed.map((f, j) =>
            f
              ? { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded for shard' }
              : { SequenceNumber: String(j), ShardId: 'shardId-000000000000' },
          ),
        },
      };
    });
    const c = collect();
    const events = Array.from({ length: 10 }, (_, i) => event(i));
    await createStreamSink({ putRecords: client, streamName: 's', ...c.options }).send(events);
    expect(calls.map((call) => call.lines.length)).toEqual([10, 4, 1]);
    const accepted = delivered(calls, (call, i) => failures(call, i).map((f) => !f));
    expect(accepted.sort()).toEqual(events.map((e) => e.eventId).sort());
    expect(new Set(accepted).size).toBe(10);
    expect(c.sleeps).toHaveLength(2);
    expect(c.sleeps[1]!).toBeGreaterThan(c.sleeps[0]!);
    expect(c.undelivered).toEqual([]);
  });

  it('retries a throttled call (ProvisionedThroughputExceededException) as a whole', async () => {
    const { client, calls } = stubbedClient((call, i) =>
      i < 2
        ? {
            status: 400,
            errorType: 'ProvisionedThroughputExceededException',
            json: { __type: 'ProvisionedThroughputExceededException', message: 'Rate exceeded' },
          }
        : ok(call),
    );
    const c = collect();
    await createStreamSink({ putRecords: client, streamName: 's', ...c.options }).send([event(1), event(2), event(3)]);
    expect(calls.map((call) => call.lines.length)).toEqual([3, 3, 3]);
    expect(c.sleeps).toHaveLength(2);
    expect(c.undelivered).toEqual([]);
  });

  it('reports, never drops, what still fails after the last attempt, and what is permanently refused', async () => {
    const { client, calls } = stubbedClient((call) => ({
      status: 200,
      json: {
        FailedRecordCount: 1,
        Records: call.lines.map((l, j) =>
          JSON.parse(l).eventId === 'evt-2'
            ? { ErrorCode: 'InternalFailure' }
            : { SequenceNumber: String(j), ShardId: 'shardId-000000000000' },
        ),
      },
    }));
    const c = collect();
    await createStreamSink({ putRecords: client, streamName: 's', maxAttempts: 3, ...c.options }).send([
      event(1),
      event(2),
      event(3),
    ]);
    expect(calls).toHaveLength(3);
    expect(c.undelivered).toEqual([
      { streamName: 's', reason: 'RetriesExhausted:InternalFailure', events: [event(2)] },
    ]);

    const missing = stubbedClient(() => ({
      status: 400,
      errorType: 'ResourceNotFoundException',
      json: { __type: 'ResourceNotFoundException', message: 'no stream' },
    }));
    const m = collect();
    await createStreamSink({ putRecords: missing.client, streamName: 's', ...m.options }).send([event(4)]);
    expect(missing.calls).toHaveLength(1);
    expect(m.undelivered).toEqual([{ streamName: 's', reason: 'ResourceNotFoundException', events: [event(4)] }]);

    const huge = stubbedClient(ok);
    const h = collect();
    await createStreamSink({ putRecords: huge.client, streamName: 's', ...h.options }).send([
      event(5),
      event(6, streamLimits.bytesPerRecord),
    ]);
    expect(huge.calls.map((call) => call.lines.length)).toEqual([1]);
    expect(h.undelivered.map((u) => [u.reason, u.events.map((e) => e.eventId)])).toEqual([
      ['RecordTooLarge', ['evt-6']],
    ]);
  });

  it('by default logs the undelivered events in full and counts them with the UndeliveredEvents metric (Powertools EMF)', () => {
    const output = captureOutput();
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'error';
    try {
      reportUndelivered({
        streamName: 'events-stream',
        reason: 'RetriesExhausted:InternalFailure',
        events: [event(7), event(8)],
      });
    } finally {
      process.env.LOG_LEVEL = level;
      output.stop();
    }
    const lines = output.json();
    const metric = lines.find((line) => '_aws' in line);
    expect(metric).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'LinkService',
            Dimensions: [['service', 'StreamName']],
            Metrics: [{ Name: 'UndeliveredEvents', Unit: 'Count' }],
          },
        ],
      },
      service: 'link-service',
      StreamName: 'events-stream',
      UndeliveredEvents: 2,
    });
    const logged = lines.find((line) => line.level === 'ERROR');
    expect(logged).toMatchObject({
      service: 'link-service',
      count: 2,
      reason: 'RetriesExhausted:InternalFailure',
      events: [event(7), event(8)],
    });
  });

  it('marks lake-only records by their partition key (the counter consumer skips them) and never spools them', async () => {
    const { client, calls } = stubbedClient(ok);
    const spooled: unknown[] = [];
    const sink = createStreamSink({
      putRecords: client,
      streamName: 's',
      ...collect().options,
      spool: {
        spool: (events) => {
          spooled.push(events);
          return Promise.resolve();
        },
      },
    });
    await sink.send([event(1)], { lakeOnly: true });
    await sink.send([event(2)]);
    expect(calls[0]!.partitionKeys[0]!.startsWith(LAKE_ONLY_PARTITION_PREFIX)).toBe(true);
    expect(calls[1]!.partitionKeys[0]!.startsWith(LAKE_ONLY_PARTITION_PREFIX)).toBe(false);

    const failing = stubbedClient(() => ({
      status: 400,
      errorType: 'ResourceNotFoundException',
      json: { __type: 'ResourceNotFoundException', message: 'no stream' },
    }));
    const f = collect();
    const failingSink = createStreamSink({
      putRecords: failing.client,
      streamName: 's',
      ...f.options,
      spool: {
        spool: (events) => {
          spooled.push(events);
          return Promise.resolve();
        },
      },
    });
    await failingSink.send([event(3)], { lakeOnly: true });
    expect(spooled).toEqual([]);
    expect(f.undelivered.map((u) => u.events.map((e) => e.eventId))).toEqual([['evt-3']]);
    await failingSink.send([event(4)]);
    expect(spooled).toHaveLength(1);
  });

  it("aborted by the caller's signal, stops where it is: the put in flight cancelled, no retry, no spool, nothing reported", async () => {
    const spooled: unknown[] = [];
    const c = collect();
    const signals: Array<AbortSignal | undefined> = [];
    // A stalled stream: the call answers only by rejecting when its signal aborts, as the SDK does.
    const stalled = (_input: PutRecordsInput, options?: { abortSignal?: AbortSignal }) => {
      signals.push(options?.abortSignal);
      return new Promise<never>((_resolve, reject) => {
        options?.abortSignal?.addEventListener('abort', () => {
          reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
        });
      });
    };
    const sink = createStreamSink({
      putRecords: stalled,
      streamName: 's',
      ...c.options,
      spool: {
        spool: (events) => {
          spooled.push(events);
          return Promise.resolve();
        },
      },
    });
    const budget = new AbortController();
    const sent = sink.send([event(1)], { signal: budget.signal });
    budget.abort(new DOMException('not recorded within 3000 ms', 'TimeoutError'));
    await expect(sent).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(signals).toEqual([budget.signal]);
    expect(c.sleeps).toEqual([]);
    expect(spooled).toEqual([]);
    expect(c.undelivered).toEqual([]);
  });

  it('aborted while backing off between attempts, the pause ends and the records are neither retried nor spooled', async () => {
    const { client, calls } = stubbedClient(() => ({
      status: 400,
      errorType: 'ProvisionedThroughputExceededException',
      json: { __type: 'ProvisionedThroughputExceededException', message: 'Rate exceeded' },
    }));
    const spooled: unknown[] = [];
    const undelivered: UndeliveredEvents[] = [];
    const budget = new AbortController();
    const pauses: Array<AbortSignal | undefined> = [];
    const sink = createStreamSink({
      putRecords: client,
      streamName: 's',
      onUndelivered: (u) => undelivered.push(u),
      // The budget runs out during the first pause; the pause ends on the abort.
      sleep: (_ms, signal) => {
        pauses.push(signal);
        budget.abort(new DOMException('not recorded within 3000 ms', 'TimeoutError'));
        return Promise.resolve();
      },
      spool: {
        spool: (events) => {
          spooled.push(events);
          return Promise.resolve();
        },
      },
    });
    await expect(sink.send([event(1)], { signal: budget.signal })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(pauses).toEqual([budget.signal]);
    expect(calls).toHaveLength(1);
    expect(spooled).toEqual([]);
    expect(undelivered).toEqual([]);
  });

  it('backs off exponentially with jitter, capped', () => {
    expect(backoffDelay(1, 100, 3000, () => 0)).toBe(50);
    expect(backoffDelay(1, 100, 3000, () => 1)).toBe(100);
    expect(backoffDelay(4, 100, 3000, () => 0)).toBe(400);
    expect(backoffDelay(10, 100, 3000, () => 1)).toBe(3000);
  });
});
