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
} from '@aws-sdk/client-dynamodb';
import type { RecordedRun } from './capacity';
import { importBundle, invoke } from './lambda-invoke';
import { operations } from './operations';
import { percentile, round } from './stats';
import type { World } from './world';

/* eslint-disable @typescript-eslint/no-explicit-any */
const commands: Record<string, new (input: any) => any> = {
  GetItem: GetItemCommand,
  PutItem: PutItemCommand,
  UpdateItem: UpdateItemCommand,
  DeleteItem: DeleteItemCommand,
  Query: QueryCommand,
  Scan: ScanCommand,
  BatchGetItem: BatchGetItemCommand,
  BatchWriteItem: BatchWriteItemCommand,
  TransactGetItems: TransactGetItemsCommand,
  TransactWriteItems: TransactWriteItemsCommand,
};

/** A fresh string of the same shape (prefix up to `_` kept), so replayed creates do not collide. */
const fresh = (value: string) => {
  const cut = value.indexOf('_') + 1;
  const body = randomBytes(value.length).toString('base64url').replace(/[-_]/g, 'x').slice(0, value.length - cut);
  return value.slice(0, cut) + body;
};

/**
 * The bare equivalent of a recorded run: the raw SDK sending the same requests, one after the
 * other as the handler did, with the ids the run generated replaced by fresh ones (creates).
 */
const bareReplay = (client: DynamoDBClient, run: RecordedRun) => {
  // ClientRequestToken (TransactWriteItems) is left to the SDK: it fills a fresh one per call, as for ours.
  const template = JSON.stringify(run.calls.map((c) => ({ operation: c.operation, input: { ...c.input, ClientRequestToken: undefined } })));
  return async () => {
    let text = template;
    for (const value of run.generated) text = text.replaceAll(value, fresh(value));
    for (const call of JSON.parse(text) as Array<{ operation: string; input: Record<string, unknown> }>) {
      await client.send(new commands[call.operation]!(call.input));
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

/**
 * Warm in-process invocations of the built bundles against DynamoDB Local, interleaved with the
 * bare replay of the same DynamoDB requests, after a warm-up of both.
 */
export const measureWarmLatency = async (world: World, dynamoEndpoint: string, recorded: Map<string, RecordedRun>, samples: number): Promise<LatencyRow[]> => {
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  const bare = new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 2 });
  const rows: LatencyRow[] = [];
  try {
    for (const key of ['redirect', 'get', 'create', 'click']) {
      const op = operations[key]!;
      const run = recorded.get(key)!;
      const handler = await importBundle(op.handler, `latency-${key}`);
      const replay = bareReplay(bare, run);
      const ours: number[] = [];
      const raw: number[] = [];
      // Long enough for DynamoDB Local's JIT and ours to settle (the first hundreds of calls are slower).
      const warmup = Math.max(100, Math.round(samples / 3));
      for (let n = -warmup; n < samples; n++) {
        const request = op.request(world, 10_000 + n);
        const a = performance.now();
        await invoke(handler, request, op.expect);
        const b = performance.now();
        await replay();
        const c = performance.now();
        if (n >= 0) {
          ours.push(b - a);
          raw.push(c - b);
        }
      }
      const summary = (v: number[]) => ({ p50: round(percentile(v, 50), 3), p99: round(percentile(v, 99), 3) });
      const row = { operation: key, name: op.name, samples, calls: run.calls.map((c) => c.operation), ours: summary(ours), bare: summary(raw) };
      rows.push({ ...row, p50Ratio: round(row.ours.p50 / row.bare.p50, 2) });
    }
  } finally {
    bare.destroy();
  }
  return rows;
};

/** Warm p50 duration (ms) of every operation, in-process against DynamoDB Local: the Lambda billed time estimate. */
export const measureDurations = async (world: World, dynamoEndpoint: string, samples: number): Promise<Record<string, number>> => {
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  const out: Record<string, number> = {};
  for (const [key, op] of Object.entries(operations)) {
    const handler = await importBundle(op.handler, `duration-${key}`);
    const times: number[] = [];
    for (let n = -5; n < samples; n++) {
      const request = op.request(world, 50_000 + n);
      const t = performance.now();
      await invoke(handler, request, op.expect);
      if (n >= 0) times.push(performance.now() - t);
    }
    out[key] = round(percentile(times, 50), 3);
  }
  return out;
};
