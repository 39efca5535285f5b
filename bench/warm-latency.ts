import { randomBytes } from 'node:crypto';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type BatchGetItemCommandInput,
  type BatchWriteItemCommandInput,
  type DeleteItemCommandInput,
  type GetItemCommandInput,
  type PutItemCommandInput,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactGetItemsCommandInput,
  type TransactWriteItemsCommandInput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { RecordedRun } from './capacity';
import { withFakeEventStream } from './fake-event-stream';
import { importBundle, invokeTimed } from './lambda-invoke';
import { operations } from './operations';
import { must } from './must';
import { percentile, round } from './stats';
import type { World } from './world';

/**
 * A recorded call sent again by the bare SDK. The input is the JSON the handler's own call sent
 * (recorded by the capacity proxy), so it has the operation's shape by construction.
 */
type Replay = (client: DynamoDBClient, input: object) => Promise<unknown>;
const replays: Record<string, Replay> = {
  GetItem: (c, input) => c.send(new GetItemCommand(input as GetItemCommandInput)),
  PutItem: (c, input) => c.send(new PutItemCommand(input as PutItemCommandInput)),
  UpdateItem: (c, input) => c.send(new UpdateItemCommand(input as UpdateItemCommandInput)),
  DeleteItem: (c, input) => c.send(new DeleteItemCommand(input as DeleteItemCommandInput)),
  Query: (c, input) => c.send(new QueryCommand(input as QueryCommandInput)),
  Scan: (c, input) => c.send(new ScanCommand(input as ScanCommandInput)),
  BatchGetItem: (c, input) => c.send(new BatchGetItemCommand(input as BatchGetItemCommandInput)),
  BatchWriteItem: (c, input) => c.send(new BatchWriteItemCommand(input as BatchWriteItemCommandInput)),
  TransactGetItems: (c, input) => c.send(new TransactGetItemsCommand(input as TransactGetItemsCommandInput)),
  TransactWriteItems: (c, input) => c.send(new TransactWriteItemsCommand(input as TransactWriteItemsCommandInput)),
};

/** A fresh string of the same shape (prefix up to `_` kept), so replayed creates do not collide. */
const fresh = (value: string) => {
  const cut = value.indexOf('_') + 1;
  const body = randomBytes(value.length)
    .toString('base64url')
    .replace(/[-_]/g, 'x')
    .slice(0, value.length - cut);
  return value.slice(0, cut) + body;
};

/**
 * What the bare SDK does for an operation: every DynamoDB call the handler made, except for the
 * redirect, whose visitor waits only for the reads before the answer (the click is recorded after
 * the response): bare is one `GetItem` of the slug item.
 */
const bareCalls = (key: string, run: RecordedRun) => {
  if (key !== 'redirect') return run.calls;
  const slug = run.calls.filter(
    (c) => c.operation === 'GetItem' && JSON.stringify(c.input.Key ?? {}).includes('"SLUG#'),
  );
  if (slug.length === 0)
    throw new Error(
      `redirect: no GetItem of a slug item among its calls (${run.calls.map((c) => c.operation).join(', ')})`,
    );
  return slug.slice(0, 1);
};

/**
 * The bare equivalent of a recorded run: the raw SDK sending the same requests, one after the
 * other as the handler did, with the ids the run generated replaced by fresh ones (creates).
 */
const bareReplay = (client: DynamoDBClient, run: RecordedRun, calls = run.calls) => {
  // ClientRequestToken (TransactWriteItems) is left to the SDK: it fills a fresh one per call, as for ours.
  const template = JSON.stringify(
    calls.map((c) => ({ operation: c.operation, input: { ...c.input, ClientRequestToken: undefined } })),
  );
  return async () => {
    let text = template;
    for (const value of run.generated) text = text.replaceAll(value, fresh(value));
    for (const call of JSON.parse(text) as Array<{ operation: string; input: object }>) {
      try {
        await must(replays[call.operation], `replay of ${call.operation}`)(client, call.input);
      } catch (error) {
        // A replayed conditional write whose condition no longer holds (the clicks-order key's
        // update expects the count it saw) is still the same round trip: timed, not fatal.
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    }
  };
};

export interface LatencyRow {
  operation: string;
  name: string;
  samples: number;
  calls: string[];
  ours: { p50: number; p99: number };
  bare: { p50: number; p99: number };
  p50Ratio: number;
}

const summary = (v: number[]) => ({ p50: round(percentile(v, 50), 3), p99: round(percentile(v, 99), 3) });

/**
 * Links the uncached redirect rotates over: each is clicked once every COLD_LINKS samples (over a
 * second at a few ms each), never the 5 times within a second that make the edge cache a link's
 * record (shared/edge/redirect-cache.ts).
 */
const COLD_LINKS = 500;

const coldLinks = async (world: World, count: number): Promise<Array<{ key: string; domain: string }>> => {
  const links: Array<{ key: string; domain: string }> = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, async () => {
        const res = await fetch(`${world.stack.baseUrl}/v1/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'api-key': world.tenant.serverKey },
          body: JSON.stringify({ url: 'https://example.com/landing?utm_source=bench', domain: world.tenant.domain }),
        });
        const body = (await res.json()) as { data: { key: string; domain: string } };
        if (res.status !== 201) throw new Error(`cold link: ${res.status} ${JSON.stringify(body)}`);
        return { key: body.data.key, domain: body.data.domain };
      }),
    );
    links.push(...batch);
  }
  return links;
};

/**
 * The redirect of an uncached link, timed to the visitor's response, against the bare SDK's one
 * `GetItem` of the same link's slug item (what the visitor waits for; the click is recorded
 * after the response). Samples rotate over `links`, so the edge's hot-link cache never holds one.
 */
const measureUncachedRedirect = async (
  world: World,
  bare: DynamoDBClient,
  links: Array<{ key: string; domain: string }>,
  samples: number,
): Promise<LatencyRow> => {
  const op = must(operations.redirect, 'redirect operation');
  const handler = await importBundle(op.handler, 'latency-redirect-uncached');
  const ours: number[] = [];
  const raw: number[] = [];
  const warmup = Math.max(100, Math.round(samples / 3));
  for (let n = -warmup; n < samples; n++) {
    const link = must(links[(n + warmup) % links.length], 'cold link');
    const base = op.request(world, 10_000 + n);
    const request = {
      ...base,
      path: `/${link.key}`,
      headers: { ...base.headers, host: link.domain },
      pathParameters: { key: link.key },
    };
    const { responseMs } = await invokeTimed(handler, request, op.expect);
    const b = performance.now();
    await bare.send(
      new GetItemCommand({
        TableName: world.stack.tableName,
        Key: { pk: { S: `SLUG#${link.domain}#${link.key}` }, sk: { S: 'SLUG' } },
      }),
    );
    const c = performance.now();
    if (n >= 0) {
      ours.push(responseMs);
      raw.push(c - b);
    }
  }
  const row = {
    operation: 'redirect',
    name: op.name,
    samples,
    calls: ['GetItem'],
    ours: summary(ours),
    bare: summary(raw),
  };
  return { ...row, p50Ratio: round(row.ours.p50 / row.bare.p50, 2) };
};

/**
 * Warm in-process invocations of the built bundles against DynamoDB Local, interleaved with the
 * bare replay of the same DynamoDB requests, after a warm-up of both. Ours is the time to the
 * client's response (a streamed edge handler: until it ends the stream; the click's recording
 * follows in the same invocation and is not in the figure), with events going to a fake event
 * stream that answers after ~15 ms.
 */
export const measureWarmLatency = async (
  world: World,
  dynamoEndpoint: string,
  recorded: Map<string, RecordedRun>,
  samples: number,
): Promise<LatencyRow[]> => {
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  const bare = new DynamoDBClient({
    endpoint: dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 2,
  });
  const rows: LatencyRow[] = [];
  try {
    const cold = await coldLinks(world, COLD_LINKS);
    await withFakeEventStream(async () => {
      rows.push(await measureUncachedRedirect(world, bare, cold, samples));
      for (const key of ['redirect', 'get', 'create', 'click']) {
        const op = must(operations[key], `operation ${key}`);
        const run = must(recorded.get(key), `recorded run of ${key}`);
        const handler = await importBundle(op.handler, `latency-${key}`);
        const calls = bareCalls(key, run);
        const replay = bareReplay(bare, run, calls);
        const ours: number[] = [];
        const raw: number[] = [];
        // Long enough for DynamoDB Local's JIT and ours to settle (the first hundreds of calls are slower).
        const warmup = Math.max(100, Math.round(samples / 3));
        for (let n = -warmup; n < samples; n++) {
          const request = op.request(world, 10_000 + n);
          // The invocation runs to its end (recording included) before the bare replay starts.
          const { responseMs } = await invokeTimed(handler, request, op.expect);
          const b = performance.now();
          await replay();
          const c = performance.now();
          if (n >= 0) {
            ours.push(responseMs);
            raw.push(c - b);
          }
        }
        // The bench link is clicked hundreds of times a second: the hot-link cache answers it (its reads: none).
        const [operation, name] =
          key === 'redirect' ? ['redirect-cached', 'redirect, hot link (cached record)'] : [key, op.name];
        const row = {
          operation,
          name,
          samples,
          calls: calls.map((c) => c.operation),
          ours: summary(ours),
          bare: summary(raw),
        };
        rows.push({ ...row, p50Ratio: round(row.ours.p50 / row.bare.p50, 2) });
      }
    });
  } finally {
    bare.destroy();
  }
  return rows;
};

/**
 * Warm p50 duration (ms) of every operation, in-process against DynamoDB Local: the Lambda billed
 * time estimate, to the handler's return (for the edge, the click's recording after the response
 * included), events to the fake event stream.
 */
export const measureDurations = async (
  world: World,
  dynamoEndpoint: string,
  samples: number,
): Promise<Record<string, number>> => {
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  const out: Record<string, number> = {};
  await withFakeEventStream(async () => {
    for (const [key, op] of Object.entries(operations)) {
      const handler = await importBundle(op.handler, `duration-${key}`);
      const times: number[] = [];
      for (let n = -5; n < samples; n++) {
        const request = op.request(world, 50_000 + n);
        const { finishedMs } = await invokeTimed(handler, request, op.expect);
        if (n >= 0) times.push(finishedMs);
      }
      out[key] = round(percentile(times, 50), 3);
    }
  });
  return out;
};
