import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactLakeAndSettle } from '@shared/analytics/lake/compaction-schedule';
import { replayClick, replaysInLog } from '@shared/clicks/click-replay';
import { countClickBatch } from '@shared/clicks/count-click-batch';
import type { CounterStreamRecord } from '@shared/clicks/link-counters';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { createSqsSpool } from '@shared/events/event-spool';
import { createKinesisPut } from '@shared/events/kinesis-client';
import { createLocalEventStream } from '@shared/events/local-event-stream';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { redriveSpooledMessages } from '@shared/events/redrive-events';
import { replaySpool } from '@shared/events/replay-spool';
import { createStreamSink, LAKE_ONLY_PARTITION_PREFIX } from '@shared/events/stream-sink';
import { linkRepository } from '@shared/links/link-repository';
import { getDeliveryQueue } from '@shared/outbound/delivery-queue';
import type { OutboundEvent } from '@shared/outbound/event-catalogue';
import { addWebhookEndpoint } from '@shared/outbound/manage-webhooks';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { captureOutput } from '@test/support/log-capture';
import { startLocalSqs, type LocalSqs } from '@test/support/sqs-loopback';
import { writeTestArtifact } from '@test/support/test-artifacts';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { waitUntil } from '@test/support/wait-until';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';
import { IPHONE_UA } from './route-cases';
import { provideServices } from '@shared/runtime/services';
import { linkClickCounts } from '@test/support/analytics-assertions';

/**
 * A duplicate storm: the same clicks delivered again through every at-least-once hop of the
 * click path, on the local stack. Behind a loopback Kinesis (the AWS JSON wire format) are the
 * local stand-ins of the stream's two readers (Firehose -> the lake, the click counter consumer);
 * the spool is SQS (the official client against a local stand-in). The hops:
 *   - the producer's retry after a lost answer (the stream took the records, the connection died);
 *   - the consumer's retry of a batch it applied but failed to finish;
 *   - the spool: a redrive whose message deletion was lost, so SQS delivers the message again and
 *     `admin replay-events` re-sends it;
 *   - `replay-clicks`: a click whose puts outlasted the edge's budget (aborted there, logged for replay) but went
 *     through, replayed from the log;
 *   - an operator's replay of the whole stream (trim horizon);
 *   - a Firehose object delivered twice into the lake;
 *   - webhook deliveries re-put on the queue.
 * Link counters (after the documented lag: the compaction that settles them), link analytics over
 * 24 h and 7 d, the raw export and the webhooks show the exact distinct count.
 */
let t: TestStack;
let sqs: LocalSqs;
let hook: WebhookReceiver;
const QUEUE = 'storm-spool';
const figures = {
  distinctClicks: 0,
  streamPuts: 0,
  lostAnswers: 0,
  spooledMessages: 0,
  clickLinesInLake: 0,
  liveClicksBeforeSettle: 0,
  clicksAfterSettle: 0,
  webhookPosts: 0,
};

/** The consumer fails the next batch once, after applying it (a timeout after the writes). */
let failNextBatchAfterApplying = false;
const readersApply = async (records: CounterStreamRecord[]) => {
  const result = await countClickBatch(records);
  if (failNextBatchAfterApplying) {
    failNextBatchAfterApplying = false;
    throw new Error('the consumer timed out after its updates');
  }
  return result;
};

const startLoopbackKinesis = async (lakeDir: string) => {
  const readers = createLocalEventStream(lakeDir, { apply: readersApply });
  let sequence = 0;
  const state = {
    endpoint: '',
    /** Refuse calls (throttled), so the sink spools. */
    failing: false,
    /** Take the next calls' records, then drop the connection before answering. */
    loseAnswers: 0,
    /** Hold the next calls this long before taking their records (past the client's request timeout). */
    delayedCalls: 0,
    delayMs: 2_500,
    /** Calls received and not yet answered (or failed). */
    inFlight: 0,
    readers,
    close: async () => {},
  };
  const reply = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
  const putRecords = async (req: IncomingMessage, res: ServerResponse) => {
    state.inFlight++;
    try {
      await takeRecords(req, res);
    } finally {
      state.inFlight--;
    }
  };
  const takeRecords = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    figures.streamPuts++;
    if (state.failing) {
      reply(res, 400, { __type: 'ProvisionedThroughputExceededException', message: 'Rate exceeded for shard' });
      return;
    }
    if (state.delayedCalls > 0) {
      state.delayedCalls--;
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    }
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      Records: Array<{ Data: string; PartitionKey: string }>;
    };
    const events = input.Records.map((r) => JSON.parse(Buffer.from(r.Data, 'base64').toString('utf8')) as EventRecord);
    await readers.send(events, {
      lakeOnly: input.Records.every((r) => r.PartitionKey.startsWith(LAKE_ONLY_PARTITION_PREFIX)),
    });
    if (state.loseAnswers > 0) {
      state.loseAnswers--;
      figures.lostAnswers++;
      res.destroy();
      return;
    }
    reply(res, 200, {
      FailedRecordCount: 0,
      Records: events.map(() => ({ SequenceNumber: String(++sequence), ShardId: `shardId-${randomUUID()}` })),
    });
  };
  const server = createServer((req, res) => {
    putRecords(req, res).catch((error: unknown) => {
      reply(res, 500, { __type: 'InternalFailure', message: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        resolve();
      });
    });
  return state;
};
let stream: Awaited<ReturnType<typeof startLoopbackKinesis>>;

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
  hook = await startWebhookReceiver();
  return () => hook.close();
});
beforeAll(async () => {
  stream = await startLoopbackKinesis(process.env.LOCAL_LAKE_DIR!);
  const stackSink = getEventSink();
  provideServices({ eventSink: sinkOf(true) });
  return async () => {
    provideServices({ eventSink: stackSink });
    await stream.close();
  };
});
afterAll(() => {
  writeTestArtifact('duplicate-storm-report.json', figures);
});

/** Log lines written while `run` runs (the edge runs in this process). */
const linesDuring = async (run: () => Promise<void>): Promise<string> => {
  const previous = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'error';
  const output = captureOutput();
  try {
    await run();
    return output
      .lines()
      .map((l) => l.line)
      .join('\n');
  } finally {
    output.stop();
    process.env.LOG_LEVEL = previous;
  }
};

describe('duplicate storm: every at-least-once hop delivers the same clicks again', () => {
  it('link counters (once settled), analytics over 24 h and 7 d, the raw export and webhooks count each click once', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const workspaceId = t.tenantA.workspaceId;
    const endpoint = await addWebhookEndpoint(workspaceId, hook.url, ['link.clicked']);
    const link = (
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: server,
        json: { url: 'https://example.com/storm', domain: t.tenantA.domain },
      })
    ).body.data as { id: string; key: string; domain: string };
    const click = async () => {
      const res = await edgeRequest(t.edgeUrl, {
        host: link.domain,
        path: `/${link.key}`,
        headers: { 'user-agent': IPHONE_UA },
      });
      expect(res.status).toBe(302);
      // The click is recorded after the response (sent, spooled or logged): done once the edge is idle.
      await t.stack.invocations.idle();
      await stream.readers.drained();
      figures.distinctClicks++;
    };

    // Plain clicks.
    for (let i = 0; i < 3; i++) await click();
    // The producer's retry after a lost answer: the stream has the records, the sink puts them again.
    stream.loseAnswers = 2;
    await click();
    await click();
    expect(figures.lostAnswers).toBe(2);
    // The consumer applies a batch, then fails: the batch is delivered to it again.
    failNextBatchAfterApplying = true;
    await click();
    expect(failNextBatchAfterApplying).toBe(false);
    // The stream refuses: the clicks are spooled (SQS).
    stream.failing = true;
    await click();
    await click();
    stream.failing = false;
    figures.spooledMessages = sqs.depth(QUEUE);
    expect(figures.spooledMessages).toBe(2);
    // The redrive re-sends them but its deletion is lost: SQS delivers the messages again, and
    // `admin replay-events` re-sends them (and deletes them).
    const received = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl(QUEUE), MaxNumberOfMessages: 10 }),
    );
    const messages = (received.Messages ?? []).map((m) => ({ id: m.MessageId!, body: m.Body! }));
    expect((await redriveSpooledMessages(messages, sinkOf(false))).delivered).toHaveLength(2);
    await sqsClient().send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: sqs.queueUrl(QUEUE),
        Entries: (received.Messages ?? []).map((m, i) => ({
          Id: String(i),
          ReceiptHandle: m.ReceiptHandle!,
          VisibilityTimeout: 0,
        })),
      }),
    );
    expect(
      (await replaySpool({ sqs: sqsClient(), queueUrl: sqs.queueUrl(QUEUE), sink: sinkOf(false) })).eventsReplayed,
    ).toBe(2);
    expect(sqs.depth(QUEUE)).toBe(0);
    await stream.readers.drained();
    // A slow stream: each put takes the records but answers after the client's request timeout
    // (2 s). The sink retries until the edge's budget (5 s locally) runs out: the budget aborts the
    // send (no more retries, no spool) and logs the click for `replay-clicks`. Every put the sink
    // made before the abort still lands (the stream took the records): copies of the same event.
    stream.delayedCalls = 10;
    const lines = await linesDuring(click);
    const replays = replaysInLog(lines);
    expect(replays).toHaveLength(1);
    const late = replays[0]!.events[0]!.eventId;
    await waitUntil(() => stream.inFlight === 0, 'the slow puts answered');
    stream.delayedCalls = 0;
    expect(sqs.depth(QUEUE)).toBe(0);
    await stream.readers.drained();
    // At least the first put and one retry (2 s + backoff + 2 s < 5 s): a real duplicate.
    const latePuts = readLake().filter((l) => l.line.eventId === late).length;
    expect(latePuts).toBeGreaterThanOrEqual(2);
    await replayClick(replays[0]!);
    await stream.readers.drained();
    // An operator replays the whole stream (the event source mapping moved to the trim horizon).
    await stream.readers.redeliverRetained();
    // Firehose delivers one object twice.
    const clickLines = () => readLake().filter((l) => l.line.eventType === 'click' && l.line.linkId === link.id);
    await createLocalLakeSink(process.env.LOCAL_LAKE_DIR!).send(
      clickLines()
        .slice(0, 3)
        .map((l) => l.line as EventRecord),
    );

    const N = figures.distinctClicks;
    expect(N).toBe(9);
    const eventIds = new Set(clickLines().map((l) => l.line.eventId));
    expect(eventIds.size).toBe(N);
    figures.clickLinesInLake = clickLines().length;
    // Extra copies in the lake: 2 (lost answers) + 2 (spooled clicks sent twice) + the slow
    // click's late retries (latePuts - 1) + its replay-clicks copy (1) + 3 (Firehose).
    expect(figures.clickLinesInLake).toBe(N + 2 + 2 + (latePuts - 1) + 1 + 3);

    const { total: analytics, exported } = linkClickCounts(t.baseUrl, server, link.id);
    // Analytics read the raw tail: each eventId once.
    expect(await analytics('24h')).toBe(N);
    expect(await analytics('7d')).toBe(N);
    const rawExport = await exported();
    expect(rawExport).toHaveLength(N);
    expect(new Set(rawExport.map((e) => e.eventId)).size).toBe(N);

    // Live, the counters may count a click delivered again in another batch; the compaction that
    // closes the clicks' hour settles them to the distinct count.
    figures.liveClicksBeforeSettle = (await linkRepository.findById(link.id, true))?.clicks ?? 0;
    expect(figures.liveClicksBeforeSettle).toBeGreaterThanOrEqual(N);
    const report = await compactLakeAndSettle(process.env.LOCAL_LAKE_DIR!, {
      now: new Date(Date.now() + 2 * 3_600_000),
    });
    expect(report.compacted).toContainEqual({ workspaceId, day: expect.any(String) as string });
    const settled = await linkRepository.findById(link.id, true);
    figures.clicksAfterSettle = settled?.clicks ?? 0;
    expect(settled).toMatchObject({ clicks: N, botClicks: 0 });
    // Settling again changes nothing; a whole-stream replay after it neither.
    await stream.readers.redeliverRetained();
    await compactLakeAndSettle(process.env.LOCAL_LAKE_DIR!, { now: new Date(Date.now() + 2 * 3_600_000) });
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(N);
    // Compacted, analytics and the export still count each click once.
    expect(await analytics('24h')).toBe(N);
    expect(await analytics('7d')).toBe(N);
    expect(await exported()).toHaveLength(N);

    // Webhooks: link.clicked shows the distinct count once settled; a delivery re-put on the queue
    // (the publisher retrying its stream batch, SQS delivering twice) is posted once per endpoint.
    const clicked = () => hook.events().filter((e) => e.type === 'link.clicked');
    await waitUntil(() => clicked().at(-1)?.data.clicks === N, `a link.clicked webhook with clicks ${N}`);
    await waitUntil(() => t.stack.outbound.pendingDeliveries() === 0, 'an empty delivery queue');
    const first = clicked()[0]!;
    const again = { endpointId: endpoint.id, workspaceId, event: first as unknown as OutboundEvent };
    await getDeliveryQueue().send([again, again]);
    await waitUntil(() => t.stack.outbound.pendingDeliveries() === 0, 'an empty delivery queue');
    const ids = clicked().map((e) => e.id);
    figures.webhookPosts = ids.length;
    expect(new Set(ids).size).toBe(ids.length);
    expect(clicked().at(-1)?.data.clicks).toBe(N);
  }, 120_000);
});
