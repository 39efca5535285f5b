import { writeTestArtifact } from '@test/support/test-artifacts';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord } from '@shared/events/event-record';
import { createSqsSpool } from '@shared/events/event-spool';
import { createKinesisPut } from '@shared/events/kinesis-client';
import { createLocalEventStream } from '@shared/events/local-event-stream';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { createStreamSink, LAKE_ONLY_PARTITION_PREFIX } from '@shared/events/stream-sink';
import { linkRepository } from '@shared/links/link-repository';
import { replaySpool } from '@shared/events/replay-spool';
import { startLocalSqs, type LocalSqs } from '@test/support/sqs-loopback';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA } from './route-cases';
import { provideServices } from '@shared/runtime/services';

/**
 * The event stream down for a while under clicks: a loopback Kinesis (the AWS JSON 1.1 wire
 * format) answers 400 ProvisionedThroughputExceededException, the sink retries, then spools to
 * SQS (the official client against the local SQS stand-in); the stream recovers, the redrive
 * re-sends. Behind the loopback, what the stream accepts goes to the local stand-ins of its two
 * readers (Firehose -> the lake, the click counter consumer). Every click reaches the lake and
 * the link's counter, and analytics count each once although a line is written twice.
 */
let t: TestStack;
let sqs: LocalSqs;
let stream: {
  endpoint: string;
  failing: boolean;
  puts: number;
  refused: number;
  drained: () => Promise<void>;
  close: () => Promise<void>;
};
const QUEUE = 'events-spool';
const figures = { clicks: 0, refusedPuts: 0, spooledMessages: 0, eventsReplayed: 0, duplicateLinesInLake: 0 };

const startLoopbackKinesis = async (lakeDir: string) => {
  const readers = createLocalEventStream(lakeDir);
  let sequence = 0;
  const state = {
    endpoint: '',
    failing: false,
    puts: 0,
    refused: 0,
    drained: () => readers.drained(),
    close: async () => {},
  };
  const reply = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
  const putRecords = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    state.puts++;
    if (state.failing) {
      state.refused++;
      reply(res, 400, {
        __type: 'ProvisionedThroughputExceededException',
        message: 'Rate exceeded for shard shardId-000000000000',
      });
      return;
    }
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      Records: Array<{ Data: string; PartitionKey: string }>;
    };
    const events = input.Records.map((r) => JSON.parse(Buffer.from(r.Data, 'base64').toString('utf8')) as EventRecord);
    await readers.send(events, {
      lakeOnly: input.Records.every((r) => r.PartitionKey.startsWith(LAKE_ONLY_PARTITION_PREFIX)),
    });
    reply(res, 200, {
      FailedRecordCount: 0,
      Records: events.map(() => ({ SequenceNumber: String(++sequence), ShardId: `shardId-${randomUUID()}` })),
    });
  };
  // A failure behind the loopback answers 500, which the client sees, rather than leaving the request hanging.
  const server = createServer((req, res) => {
    putRecords(req, res).catch((error: unknown) => {
      reply(res, 500, { __type: 'InternalFailure', message: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  return state;
};

const sqsClient = () =>
  new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: loopbackCredentials });
const sinkOf = (spool: boolean) =>
  createStreamSink({
    putRecords: createKinesisPut({ region: 'us-east-1', endpoint: stream.endpoint, credentials: loopbackCredentials }),
    streamName: 'events',
    maxAttempts: 3,
    sleep: async () => {},
    spool: spool
      ? createSqsSpool({ queueUrl: sqs.queueUrl(QUEUE), region: 'us-east-1', client: sqsClient() })
      : undefined,
  });

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  sqs = await startLocalSqs();
  return () => sqs.stop();
});
beforeAll(async () => {
  stream = await startLoopbackKinesis(process.env.LOCAL_LAKE_DIR!);
  provideServices({ eventSink: sinkOf(true) });
  return () => stream.close();
});
afterAll(() => {
  writeTestArtifact('event-spool-report.json', figures);
});

describe('event stream outage under clicks', () => {
  it('spools what the stream rejects, re-sends it on recovery; the link counts every click and analytics count each once', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const link = (
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: server,
        json: { url: 'https://example.com/outage', domain: t.tenantA.domain },
      })
    ).body.data;
    const click = async () => {
      const res = await edgeRequest(t.edgeUrl, {
        host: link.domain,
        path: `/${link.key}`,
        headers: { 'user-agent': IPHONE_UA },
      });
      expect(res.status).toBe(302);
      // The click is recorded after the response: done (sent, or spooled) once the edge is idle.
      await t.idle();
      figures.clicks++;
    };

    await click();
    stream.failing = true;
    for (let i = 0; i < 8; i++) await click();
    expect(stream.refused).toBeGreaterThanOrEqual(8 * 3);
    figures.refusedPuts = stream.refused;
    figures.spooledMessages = sqs.depth(QUEUE);
    expect(figures.spooledMessages).toBe(8);

    // Still down: the redrive leaves every message on the queue.
    const stillDown = await replaySpool({ sqs: sqsClient(), queueUrl: sqs.queueUrl(QUEUE), sink: sinkOf(false) });
    expect(stillDown).toMatchObject({ messagesReplayed: 0, eventsReplayed: 0 });
    expect(sqs.depth(QUEUE)).toBe(8);

    stream.failing = false;
    for (let i = 0; i < 3; i++) await click();
    const replayed = await replaySpool({
      sqs: sqsClient(),
      queueUrl: sqs.queueUrl(QUEUE),
      sink: sinkOf(false),
      maxMessages: 3,
    });
    // By hand three at a time, then the rest.
    const again = await replaySpool({ sqs: sqsClient(), queueUrl: sqs.queueUrl(QUEUE), sink: sinkOf(false) });
    expect(replayed.messagesReplayed + again.messagesReplayed).toBe(8);
    expect(sqs.depth(QUEUE)).toBe(0);
    figures.eventsReplayed = replayed.eventsReplayed + again.eventsReplayed;
    expect(figures.eventsReplayed).toBe(8);
    // A duplicate delivery: one replayed event line written to the lake a second time.
    const clickLines = () => readLake().filter((l) => l.line.eventType === 'click' && l.line.linkId === link.id);
    await createLocalLakeSink(process.env.LOCAL_LAKE_DIR!).send([clickLines()[1]!.line as EventRecord]);

    const lines = clickLines();
    const ids = new Set(lines.map((l) => l.line.eventId));
    expect(ids.size).toBe(12);
    figures.duplicateLinesInLake = lines.length - ids.size;
    expect(figures.duplicateLinesInLake).toBe(1);

    const analytics = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h&traffic=all`, {
      headers: server,
    });
    expect(analytics.status).toBe(200);
    expect(analytics.body.data.summary).toMatchObject({ totalClicks: 12 });
    // The counters follow the events that reached the stream: the 8 spooled clicks were counted once replayed.
    await stream.drained();
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 12 });
  });
});
