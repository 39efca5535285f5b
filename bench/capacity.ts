import { startDynamoFaultProxy, type CapacityCall } from '@test/support/dynamodb-fault-proxy';
import { importBundle, invoke, jsonBody } from './lambda-invoke';
import { operations } from './operations';
import { withFakeEventStream } from './fake-event-stream';
import { must } from './must';
import { round } from './stats';
import type { World } from './world';

export interface CapacityRow {
  operation: string;
  name: string;
  handler: string;
  /** DynamoDB calls of one run, in order (e.g. GetItem, TransactWriteItems). */
  calls: string[];
  read: number;
  write: number;
  /** Every call reported ConsumedCapacity (DynamoDB Local does for data-plane calls). */
  reported: boolean;
  events: number;
  /** Bytes the function wrote to its log (Powertools JSON and EMF lines) in the median run. */
  logBytes: number;
}

/** Counts (and holds back) what the in-process bundles write to stdout and stderr: their CloudWatch log lines when deployed. */
const logByteCounter = () => {
  let bytes = 0;
  const originals = {
    stdout: process.stdout.write.bind(process.stdout),
    stderr: process.stderr.write.bind(process.stderr),
  };
  const count = ((chunk: string | Uint8Array) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = count;
  process.stderr.write = count;
  return {
    take: () => {
      const taken = bytes;
      bytes = 0;
      return taken;
    },
    stop: () => {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
    },
  };
};

/** What one run of an operation did on DynamoDB, and the ids it generated (for the bare replay). */
export interface RecordedRun {
  calls: CapacityCall[];
  generated: string[];
}

/**
 * DynamoDB work per operation: each bundle runs `runs` (at least 2) times through the capacity proxy; the
 * row is the median run's read and write units (runs differ only on first use, e.g. a cache).
 */
export const measureCapacity = (world: World, dynamoEndpoint: string, requestedRuns: number) =>
  // Events go to a fake event stream, as deployed: an operation's DynamoDB work is its own, not
  // the local stream stand-in's counter consumer's (the cost table prices that separately).
  withFakeEventStream(async (stream) => {
    const result = await measureCapacityWith(world, dynamoEndpoint, requestedRuns);
    return { ...result, eventBytes: stream.records ? Math.round(stream.bytes / stream.records) : 0 };
  });

const measureCapacityWith = async (world: World, dynamoEndpoint: string, requestedRuns: number) => {
  const runs = Math.max(2, requestedRuns);
  const proxy = await startDynamoFaultProxy(dynamoEndpoint, { recordCapacity: true });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  const rows: CapacityRow[] = [];
  const recorded = new Map<string, RecordedRun>();
  try {
    for (const [key, op] of Object.entries(operations)) {
      const handler = await importBundle(op.handler, `capacity-${key}`);
      // A first run warms the instance's caches (key lookups), as a warm Lambda would have them.
      await invoke(handler, op.request(world, -1), op.expect);
      proxy.take();
      const perRun: CapacityCall[][] = [];
      const responseStrings: string[][] = [];
      const logBytes: number[] = [];
      for (let n = 0; n < runs; n++) {
        const logs = logByteCounter();
        const result = await invoke(handler, op.request(world, n), op.expect).finally(() => {
          logs.stop();
        });
        logBytes.push(logs.take());
        perRun.push(proxy.take());
        responseStrings.push(generatedStrings(result));
      }
      // Generated ids are the response strings that differ from one run to the next, and the
      // prefixed ids in the calls that differ likewise (ids no response shows: an audit entry's).
      const [first = [], second = []] = responseStrings;
      const [firstCalls = [], secondCalls = []] = perRun.map(idsInCalls);
      recorded.set(key, {
        calls: must(perRun[0], `${key}'s first run`),
        generated: [
          ...new Set([
            ...first.filter((v) => !second.includes(v)),
            ...firstCalls.filter((v) => !secondCalls.includes(v)),
          ]),
        ],
      });
      const totals = perRun.map((calls) => ({ calls, read: sum(calls, 'read'), write: sum(calls, 'write') }));
      totals.sort((a, b) => a.read + a.write - (b.read + b.write));
      const median = must(totals[Math.floor(totals.length / 2)], `${key}'s median run`);
      rows.push({
        operation: key,
        name: op.name,
        handler: op.handler,
        calls: median.calls.map((c) => c.operation),
        read: round(median.read, 2),
        write: round(median.write, 2),
        reported: perRun.flat().every((c) => c.reported),
        events: op.events,
        logBytes: must(logBytes.sort((a, b) => a - b)[Math.floor(logBytes.length / 2)], `${key}'s median log bytes`),
      });
    }
  } finally {
    await proxy.stop();
    process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  }
  return { rows, recorded };
};

const sum = (calls: CapacityCall[], field: 'read' | 'write') => calls.reduce((n, c) => n + c[field], 0);

/** Prefixed time-ordered ids (`aud_01...`, shared/util/ids.ts) anywhere in a run's DynamoDB requests. */
const idsInCalls = (calls: CapacityCall[]): string[] => [
  ...new Set(JSON.stringify(calls.map((c) => c.input)).match(/\b[a-z]{2,5}_[0-9A-Z]{26}\b/g) ?? []),
];

/** Ids the run generated, as its response shows them (v1 envelope `data`; a redirect has none). */
const generatedStrings = (result: Parameters<typeof jsonBody>[0]): string[] => {
  const text = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '');
  if (!text.startsWith('{')) return [];
  const found: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string' && /^[A-Za-z0-9_-]{6,64}$/.test(value)) found.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(jsonBody(result).data);
  return found;
};
