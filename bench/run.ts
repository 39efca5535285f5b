/**
 * `npm run bench [-- --quick] [-- --check] [-- --cold-start] [-- --hot-link] [-- --edge-hot-links] [-- --hot-keys] [-- --hot-keys-seconds N] [-- --analytics-events N[,N...]]`:
 * cold start, warm latency, DynamoDB work and cost per million, loopback throughput, analytics
 * scale and the hot link, in one run (`--cold-start`: section 1 and its budgets only;
 * `--hot-link`: the hot-link section and its budgets only, into bench/results/hot-link.json;
 * `--hot-keys`: the scaled-down load on the event log and the limiter only, into
 * bench/results/hot-keys.json, `--hot-keys-seconds N` modelled seconds, default 600;
 * `--analytics-events`: section 5 only, at the given levels, e.g. 10000000, into
 * bench/results/analytics.json; `--edge-hot-links`: section 8, hot links at the edge, and its
 * budgets only, into bench/results/edge-hot-links.json). Markdown on stdout, JSON in bench/results/latest.json;
 * `--check` exits 1 when a budget fails. Loopback only, bounded.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '@shared/local/paths';
import { measureAnalyticsScale } from './analytics-scale';
import { measureCapacity } from './capacity';
import { emptyColdStart, measureColdStart } from './cold-start';
import { costPerMillion } from './cost';
import { auditItemsOf, auditWriteOf } from './audit-cost';
import { keptFailuresCost } from './kept-failures-cost';
import { measureCounterWork } from './counter-cost';
import { operations } from './operations';
import { routeByHandler } from '@shared/routes/route-table';
import { pricesTakenOn, telemetryAssumptions } from './prices';
import { clickPathHandlers } from '@lib/trace-sampling';
import { judgeBudgets, toMarkdown, type BenchResults } from './report';
import { measureThroughput } from './throughput';
import { measureDurations, measureWarmLatency } from './warm-latency';
import { measureLimiterOverhead } from './limiter-overhead';
import { measureHotKeys } from './hot-keys';
import { measureHotLink } from './hot-link';
import { edgeHotLinksCost, measureViralLink } from './edge-hot-links';
import { startDynamoDbLocal } from '@shared/local/dynamodb-local';
import { lakeModelReport } from './lake-cost';
import { measureRedirectRules } from './redirect-rules';
import { sdkSize } from './sdk-size';
import { buildAll } from '../scripts/build';
import { startWorld } from './world';
import { must } from './must';

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has('--quick');
const check = args.has('--check');
const coldStartOnly = args.has('--cold-start');
const hotLinkOnly = args.has('--hot-link');
const hotKeysOnly = args.has('--hot-keys');
const edgeHotLinksOnly = args.has('--edge-hot-links');
/** `--hot-keys-seconds N`: the scaled-down load's modelled duration (default 600, ten minutes; --quick 30). */
const hotKeysSecondsArg = (() => {
  const index = argv.findIndex((a) => a === '--hot-keys-seconds' || a.startsWith('--hot-keys-seconds='));
  if (index === -1) return undefined;
  const flag = argv[index] ?? '';
  const value = Number(flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write('--hot-keys-seconds takes a whole number of modelled seconds (e.g. 600)\n');
    process.exit(2);
  }
  return value;
})();
/** `--analytics-events 10000000` (or `--analytics-events=1000000,10000000`): only section 5, at those levels. */
const analyticsEventsArg = (() => {
  const index = argv.findIndex((a) => a === '--analytics-events' || a.startsWith('--analytics-events='));
  const flag = index === -1 ? undefined : argv[index];
  if (flag === undefined) return undefined;
  const value = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : argv[index + 1];
  const levels = (value ?? '').split(',').map((v) => Number(v.replaceAll('_', '')));
  if (levels.length === 0 || levels.some((n) => !Number.isInteger(n) || n < 1000)) {
    process.stderr.write('--analytics-events takes event counts of at least 1000, comma-separated (e.g. 10000000)\n');
    process.exit(2);
  }
  return levels;
})();
const analyticsOnly = analyticsEventsArg !== undefined;
const baseSettings = quick
  ? {
      coldSamples: 7,
      capacityRuns: 2,
      latencySamples: 200,
      durationSamples: 15,
      throughputSeconds: 3,
      analyticsLevels: [10_000, 100_000],
      analyticsRepeats: 2,
      hotLinkSeconds: 6,
      hotKeysSeconds: 30,
    }
  : {
      coldSamples: 21,
      capacityRuns: 3,
      latencySamples: 1000,
      durationSamples: 50,
      throughputSeconds: 10,
      analyticsLevels: [10_000, 100_000, 1_000_000],
      analyticsRepeats: 3,
      hotLinkSeconds: 20,
      hotKeysSeconds: 600,
    };
const settings = {
  ...baseSettings,
  analyticsLevels: analyticsEventsArg ?? baseSettings.analyticsLevels,
  hotKeysSeconds: hotKeysSecondsArg ?? baseSettings.hotKeysSeconds,
};
const CONNECTIONS = 10;
/** The measured operations that record a click (the counter consumer counts them). */
const CLICK_OPERATIONS = new Set(['redirect', 'click']);

// The bundles run in this process and write their log lines (Powertools JSON and EMF) to stdout;
// the report owns stdout, so those lines are dropped (the cost table counts their bytes).
const writeReport = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;

const progress = (message: string) =>
  process.stderr.write(`[bench ${Math.round(performance.now() / 1000)}s] ${message}\n`);

/** The memory every Lambda gets (lib/service-function.ts default), read from its source. */
const configuredMemoryMb = (): number => {
  const source = readFileSync(path.join(projectRoot, 'lib', 'service-function.ts'), 'utf8');
  const match = /memorySize \?\? (\d+)/.exec(source);
  if (!match) throw new Error('Could not read the default memorySize from lib/service-function.ts');
  return Number(match[1]);
};

const started = performance.now();
/** When, where and how long the run took: the head of every results file. */
const runHeader = () => ({
  takenAt: new Date().toISOString(),
  mode: quick ? ('quick' as const) : ('full' as const),
  node: process.versions.node,
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
  seconds: (performance.now() - started) / 1000,
});
const emptySections = {
  latency: [],
  capacity: [],
  durationsMs: {},
  cost: { memoryMb: configuredMemoryMb(), eventBytes: 0, pricesTakenOn, rows: [] },
  throughput: [],
};

// The lake model (no AWS, about a second): its budget lines are judged in every mode.
const lake = (await lakeModelReport()).summary;
// The SDK's bundled size and the web script's (esbuild, well under a second): judged in every mode.
const sdk = await sdkSize();
// The redirect rules' matcher and the A/B split (in-process, well under a second): judged in every mode.
const rules = measureRedirectRules();

let results: BenchResults;
if (edgeHotLinksOnly) {
  progress('edge hot links: cost model, round trip saved, the viral link (starting DynamoDB Local)');
  const dynamo = await startDynamoDbLocal();
  try {
    const viral = await measureViralLink(dynamo.endpoint);
    const edgeHotLinks = { cost: edgeHotLinksCost(), viral };
    const partial = { ...runHeader(), coldStart: emptyColdStart, ...emptySections, analytics: [], edgeHotLinks };
    results = { ...partial, sdk, rules, budgets: judgeBudgets({ ...partial, sdk, rules }) };
  } finally {
    await dynamo.stop();
  }
} else if (hotKeysOnly) {
  progress('starting DynamoDB Local and the local stack');
  const world = await startWorld();
  try {
    progress(`hot keys: ${settings.hotKeysSeconds} modelled s of the scaled-down load`);
    const hotKeys = await measureHotKeys(world.stack.dynamoEndpoint, settings.hotKeysSeconds);
    const partial = { ...runHeader(), coldStart: emptyColdStart, ...emptySections, analytics: [], hotKeys };
    results = { ...partial, sdk, rules, budgets: judgeBudgets({ ...partial, sdk, rules }) };
  } finally {
    await world.stack.stop();
  }
} else if (hotLinkOnly) {
  progress('building bundles; starting DynamoDB Local and the local stack');
  await buildAll();
  const world = await startWorld();
  try {
    progress(`hot link: ${settings.hotLinkSeconds} s at 10x the scaled per-key limits`);
    const hotLink = await measureHotLink(world, world.stack.dynamoEndpoint, settings.hotLinkSeconds);
    const partial = {
      ...runHeader(),
      coldStart: emptyColdStart,
      ...emptySections,
      analytics: [],
      hotLink,
    };
    results = { ...partial, lake, sdk, rules, budgets: judgeBudgets({ ...partial, lake, sdk, rules }) };
  } finally {
    await world.stack.stop();
  }
} else if (analyticsOnly) {
  progress(
    `analytics only: ${settings.analyticsLevels.join(', ')} events (starting DynamoDB Local and the local stack for the world)`,
  );
  const world = await startWorld();
  try {
    const analytics = await measureAnalyticsScale(world, settings.analyticsLevels, settings.analyticsRepeats, progress);
    const partial = { ...runHeader(), coldStart: emptyColdStart, ...emptySections, analytics };
    results = { ...partial, lake, sdk, rules, budgets: judgeBudgets({ ...partial, lake, sdk, rules }) };
  } finally {
    await world.stack.stop();
  }
} else if (coldStartOnly) {
  progress('cold start only: building bundles and measuring cold starts');
  const coldStart = await measureColdStart(settings.coldSamples);
  const partial = { ...runHeader(), coldStart, ...emptySections, analytics: [] };
  results = { ...partial, lake, sdk, rules, budgets: judgeBudgets({ ...partial, lake, sdk, rules }) };
} else {
  progress(`mode ${quick ? 'quick' : 'full'}: building bundles and measuring cold starts`);
  const coldStart = await measureColdStart(settings.coldSamples);
  progress('starting DynamoDB Local and the local stack');
  const world = await startWorld();
  try {
    const endpoint = world.stack.dynamoEndpoint;
    progress('DynamoDB work per operation (ReturnConsumedCapacity)');
    const { rows: capacity, recorded, eventBytes } = await measureCapacity(world, endpoint, settings.capacityRuns);
    progress('warm latency vs bare SDK');
    const latency = await measureWarmLatency(world, endpoint, recorded, settings.latencySamples);
    progress('rate limiter overhead (GET link with and without it)');
    const limiter = await measureLimiterOverhead(world, endpoint, settings.latencySamples);
    progress('durations of every operation');
    const durationsMs = await measureDurations(world, endpoint, settings.durationSamples);
    const memoryMb = configuredMemoryMb();
    progress('click counter consumer (one batch of one link)');
    const counterWork = await measureCounterWork(world, settings.capacityRuns * 3, memoryMb);
    /** Operations that record a click: the consumer's share per click, at the hot link's batch size. */
    const countersOf = (operation: string) =>
      CLICK_OPERATIONS.has(operation)
        ? {
            clicks: 1,
            clicksPerBatch: counterWork.hotClicksPerBatch,
            counterWriteUnits: counterWork.counterWriteUnits,
            consumerDurationMs: counterWork.consumerDurationMs,
            consumerMemoryMb: counterWork.consumerMemoryMb,
            // At the hot link's rate a compaction run settles its day once per hour of many batches: one per batch is an upper bound.
            settle: {
              readUnits: counterWork.settleReadUnits,
              writeUnits: counterWork.settleWriteUnits,
              clicksPerSettle: counterWork.hotClicksPerBatch,
            },
          }
        : undefined;
    /** The counters' cost per million clicks of a link clicked once per batch (and, settled, once per hour). */
    const coldLinkCounters = (settled: boolean) =>
      costPerMillion({
        memoryMb,
        durationMs: 0,
        readUnits: 0,
        writeUnits: 0,
        events: 0,
        eventBytes,
        counters: {
          clicks: 1,
          clicksPerBatch: 1,
          counterWriteUnits: counterWork.counterWriteUnits,
          consumerDurationMs: counterWork.consumerDurationMs / counterWork.hotClicksPerBatch,
          consumerMemoryMb: counterWork.consumerMemoryMb,
          ...(settled
            ? {
                settle: {
                  readUnits: counterWork.settleReadUnits,
                  writeUnits: counterWork.settleWriteUnits,
                  clicksPerSettle: 1,
                },
              }
            : {}),
        },
      }).counters;
    const cost = {
      memoryMb,
      eventBytes,
      pricesTakenOn,
      counterWork,
      /** A link clicked once per batch pays one counter update and one consumer invocation per click. */
      coldLinkCountersPerMillion: coldLinkCounters(false),
      keptFailures: keptFailuresCost(eventBytes),
      /**
       * The same link clicked once per hour, with its duplicates settled: each click also pays one
       * settle (a read, and an update folding its hour into the day's exact count).
       */
      coldLinkCountersWithSettlePerMillion: coldLinkCounters(true),
      rows: capacity.map((c) => ({
        operation: c.operation,
        name: c.name,
        ...costPerMillion({
          memoryMb,
          durationMs: must(durationsMs[c.operation], `duration of ${c.operation}`),
          readUnits: c.read,
          writeUnits: c.write,
          events: c.events,
          eventBytes,
          counters: countersOf(c.operation),
          logBytes: c.logBytes + telemetryAssumptions.platformLogBytesPerInvocation,
          traceRate: clickPathHandlers.includes(c.handler)
            ? telemetryAssumptions.clickPathTraceRate
            : telemetryAssumptions.defaultTraceRate,
          via:
            routeByHandler(must(operations[c.operation], `operation ${c.operation}`).handler).api === 'edge'
              ? 'edge'
              : 'api',
          waf: true,
        }),
      })),
    };
    /** What each audited change pays for its audit entry; the redirect must write none (bench/audit-cost.ts). */
    const callsOf = (operation: string) => must(recorded.get(operation), `the recorded run of ${operation}`).calls;
    const audit = {
      rows: cost.rows.flatMap((row) => auditWriteOf(row, callsOf(row.operation)) ?? []),
      redirectAuditItems: auditItemsOf(callsOf('redirect')).length,
    };
    progress('throughput (autocannon on loopback)');
    const throughput = await measureThroughput(world, settings.throughputSeconds, CONNECTIONS);
    progress(`analytics scale: ${settings.analyticsLevels.join(', ')} events`);
    const analytics = await measureAnalyticsScale(world, settings.analyticsLevels, settings.analyticsRepeats);
    progress(`hot link: ${settings.hotLinkSeconds} s at 10x the scaled per-key limits`);
    const hotLink = await measureHotLink(world, endpoint, settings.hotLinkSeconds);
    progress(`hot keys: ${settings.hotKeysSeconds} modelled s of the scaled-down load`);
    const hotKeys = await measureHotKeys(world.stack.dynamoEndpoint, settings.hotKeysSeconds);
    progress('edge hot links: the viral link');
    const redirectRow = cost.rows.find((row) => row.operation === 'redirect');
    const edgeHotLinks = {
      cost: edgeHotLinksCost(redirectRow, eventBytes),
      viral: await measureViralLink(world.stack.dynamoEndpoint),
    };
    const partial = {
      ...runHeader(),
      coldStart,
      latency,
      limiter,
      capacity,
      durationsMs,
      cost: { ...cost, audit },
      throughput,
      analytics,
      hotLink,
      hotKeys,
      edgeHotLinks,
    };
    results = { ...partial, lake, sdk, rules, budgets: judgeBudgets({ ...partial, lake, sdk, rules }) };
  } finally {
    await world.stack.stop();
  }
}

const out = path.join(projectRoot, 'bench', 'results');
mkdirSync(out, { recursive: true });
const outFile = edgeHotLinksOnly
  ? 'edge-hot-links.json'
  : hotKeysOnly
    ? 'hot-keys.json'
    : hotLinkOnly
      ? 'hot-link.json'
      : analyticsOnly
        ? 'analytics.json'
        : coldStartOnly
          ? 'cold-start.json'
          : 'latest.json';
writeFileSync(path.join(out, outFile), `${JSON.stringify(results, null, 2)}\n`);
writeReport(`${toMarkdown(results)}\n`);
const failed = results.budgets.filter((b) => !b.pass);
progress(
  `done in ${Math.round(results.seconds)} s; ${failed.length} budget(s) failed; JSON in bench/results/${outFile}`,
);
if (check && failed.length) process.exit(1);
process.exit(0);
