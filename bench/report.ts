import { activePartitionsFor, FIREHOSE_ACTIVE_PARTITION_LIMIT, LAKE_SHARDS } from '@shared/analytics/lake/lake-layout';
import { dashboardViewUsdFor, type AnalyticsLevel } from './analytics-scale';
import { budgets, initLimitOf, isQrHandler, REDIRECT, type BudgetResult } from './budgets';
import { frontDoorBudget, frontDoorPerMillion } from './cost';
import type { CapacityRow } from './capacity';
import { CONFIRM_MARGIN, HANDLER_RUNS_PER_FLOOR_RUN, type ColdStartResults, type ColdStartRow } from './cold-start';
import type { CostPerMillion } from './cost';
import type { AuditWriteRow } from './audit-cost';
import type { CounterWork } from './counter-cost';
import type { KeptFailuresCost } from './kept-failures-cost';
import { must } from './must';
import { prices, pricesTakenOn, telemetryAssumptions } from './prices';
import type { ThroughputRow } from './throughput';
import type { LatencyRow } from './warm-latency';
import type { LimiterOverhead } from './limiter-overhead';
import type { HotKeysBenchResult } from './hot-keys';
import type { HotLinkResult } from './hot-link';
import { edgeHotLinksBudgets, edgeHotLinksMarkdown, type EdgeHotLinksResult } from './edge-hot-links';
import type { LakeModelSummary } from './lake-cost';
import type { RulesBench } from './redirect-rules';
import type { SdkSize } from './sdk-size';

export interface BenchResults {
  takenAt: string;
  mode: 'full' | 'quick';
  node: string;
  machine: { cpus: number; model: string };
  seconds: number;
  coldStart: ColdStartResults;
  latency: LatencyRow[];
  /** Absent in results taken before the rate limiter existed. */
  limiter?: LimiterOverhead;
  capacity: CapacityRow[];
  durationsMs: Record<string, number>;
  cost: {
    memoryMb: number;
    eventBytes: number;
    pricesTakenOn: string;
    rows: Array<{ operation: string; name: string } & CostPerMillion>;
    /** Absent in results taken before the click counter consumer existed. */
    counterWork?: CounterWork;
    coldLinkCountersPerMillion?: number;
    /** Absent in results taken before failed batches were kept whole. */
    keptFailures?: KeptFailuresCost;
    /** Absent in results taken before the counters were settled from the lake. */
    coldLinkCountersWithSettlePerMillion?: number;
    /**
     * The audit log's share: per audited operation, its audit items' write units and storage; and
     * the audit items the redirect writes (none). Absent in results taken before it was priced.
     */
    audit?: { rows: AuditWriteRow[]; redirectAuditItems: number };
  };
  throughput: ThroughputRow[];
  analytics: AnalyticsLevel[];
  /** Absent in results taken before the hot-link section existed. */
  hotLink?: HotLinkResult;
  /** Hot links at the edge (bench/edge-hot-links.ts). Absent in older results. */
  edgeHotLinks?: EdgeHotLinksResult;
  /** The event lake at production volume (model; bench/lake-cost.ts). Absent in older results. */
  lake?: LakeModelSummary;
  /** @linkservice/sdk's bundled size and @linkservice/web's script's (bench/sdk-size.ts). Absent in older results. */
  sdk?: SdkSize;
  /** The redirect rules' matcher and the A/B split (bench/redirect-rules.ts). Absent in older results. */
  rules?: RulesBench;
  /** Absent in results taken before the hot-keys section existed. */
  hotKeys?: HotKeysBenchResult;
  budgets: BudgetResult[];
}

/**
 * The init-time budgets: the redirect, the QR handlers and every other handler, each against its
 * own floor. Judged on the exact ratio of the medians, not the rounded one shown. Bundle sizes
 * have no budget (they are reported in section 1).
 */
export const coldStartBudgets = (coldStart: ColdStartResults): BudgetResult[] => {
  const floorInit = new Map(coldStart.floors.map((f) => [f.floor, f.initMs]));
  const ratio = (row: ColdStartRow) =>
    row.initMs / must(floorInit.get(row.floor), `floor ${row.floor} of ${row.handler}`);
  const groups = [
    {
      name: 'redirect init time vs its floor',
      limit: budgets.redirectVsFloor,
      rows: coldStart.rows.filter((row) => row.handler === REDIRECT),
    },
    {
      name: "every handler's init time vs its floor",
      limit: budgets.handlerVsFloor,
      rows: coldStart.rows.filter((row) => row.handler !== REDIRECT && !isQrHandler(row.handler)),
    },
    {
      name: "QR handlers' init time vs their floor (QR encoder)",
      limit: budgets.qrHandlerVsFloor,
      rows: coldStart.rows.filter((row) => isQrHandler(row.handler)),
    },
  ];
  return groups.flatMap(({ name, limit, rows }) => {
    const worst = rows.reduce<ColdStartRow | undefined>((w, row) => (w && ratio(w) >= ratio(row) ? w : row), undefined);
    if (!worst) return [];
    const over = rows.filter((row) => ratio(row) > limit).map((row) => `${row.handler} ${row.initRatio}x`);
    return [
      {
        name,
        limit: `<= ${limit}x`,
        measured: over.length ? `over: ${over.join(', ')}` : `worst ${worst.initRatio}x (${worst.handler})`,
        pass: over.length === 0,
      },
    ];
  });
};

/** Every budget of the issue, each pass or fail with the figure it was judged on. */
export const judgeBudgets = (r: Omit<BenchResults, 'budgets'>): BudgetResult[] => {
  const out: BudgetResult[] = [...coldStartBudgets(r.coldStart)];
  if (r.durationsMs.bulk100 !== undefined) {
    out.push({
      name: 'bulk create of 100 links, warm duration',
      limit: `<= ${budgets.bulk100Ms} ms (API Gateway times out at 30 s)`,
      measured: `${r.durationsMs.bulk100} ms`,
      pass: r.durationsMs.bulk100 <= budgets.bulk100Ms,
    });
  }
  for (const key of ['redirect', 'get']) {
    const row = r.latency.find((l) => l.operation === key);
    if (!row) continue;
    out.push({
      name: `warm p50, ${row.name}, ours / bare SDK`,
      limit: `<= ${budgets.warmP50VsBare}`,
      measured: `${row.p50Ratio} (${row.ours.p50} / ${row.bare.p50} ms)`,
      pass: row.p50Ratio <= budgets.warmP50VsBare,
    });
  }
  if (r.hotLink) out.push(...hotLinkBudgets(r.hotLink));
  if (r.edgeHotLinks) out.push(...edgeHotLinksBudgets(r.edgeHotLinks));
  if (r.lake) out.push(...lakeBudgets(r.lake));
  if (r.sdk)
    out.push({
      name: '@linkservice/sdk bundled with its dependencies, minified, gzipped',
      limit: `< ${budgets.sdkGzipBytes / 1024} KB`,
      measured: `${(r.sdk.gzipBytes / 1024).toFixed(1)} KB (${(r.sdk.minifiedBytes / 1024).toFixed(1)} KB minified)`,
      pass: r.sdk.gzipBytes < budgets.sdkGzipBytes,
    });
  if (r.rules) out.push(...rulesBudgets(r.rules));
  if (r.sdk?.web)
    out.push({
      name: 'web script (@linkservice/web) minified, gzipped',
      limit: `<= ${budgets.webScriptGzipBytes / 1024} KB`,
      measured: `${(r.sdk.web.gzipBytes / 1024).toFixed(2)} KB (${(r.sdk.web.minifiedBytes / 1024).toFixed(1)} KB minified)`,
      pass: r.sdk.web.gzipBytes <= budgets.webScriptGzipBytes,
    });
  if (r.hotKeys) out.push(...hotKeysBudgets(r.hotKeys));
  if (r.cost.audit)
    out.push({
      name: 'audit items the redirect writes (the redirect path is unchanged by the audit log)',
      limit: `<= ${budgets.redirectAuditItems}`,
      measured: `${r.cost.audit.redirectAuditItems}`,
      pass: r.cost.audit.redirectAuditItems <= budgets.redirectAuditItems,
    });
  const settled = r.cost.coldLinkCountersWithSettlePerMillion;
  if (settled !== undefined)
    out.push({
      name: 'click counters $ / 1M clicks, duplicates settled (a link clicked once per batch and per hour)',
      limit: `<= ${budgets.countersWithDuplicatesSettledUsd}`,
      measured: `${settled}`,
      pass: settled <= budgets.countersWithDuplicatesSettledUsd,
    });
  for (const row of r.throughput) {
    out.push({
      name: `throughput errors, ${row.name}`,
      limit: `${budgets.throughputErrors}`,
      measured: `${row.errors} of ${row.requests}`,
      pass: row.errors <= budgets.throughputErrors,
    });
  }
  // The redirect's front door (CloudFront + viewer-request function + WAF), with WAF on and off.
  const redirectCost = r.cost.rows.find((row) => row.operation === 'redirect');
  if (redirectCost) {
    const wafOn = frontDoorPerMillion(redirectCost);
    const wafOff = frontDoorPerMillion({ ...redirectCost, waf: 0 });
    out.push({
      name: 'redirect front door $ / 1M, WAF on',
      limit: `<= ${frontDoorBudget.wafOn}`,
      measured: `${wafOn}`,
      pass: wafOn <= frontDoorBudget.wafOn,
    });
    out.push({
      name: 'redirect front door $ / 1M, WAF off',
      limit: `<= ${frontDoorBudget.wafOff}`,
      measured: `${wafOff}`,
      pass: wafOff <= frontDoorBudget.wafOff,
    });
    // Everything but the front door (CloudFront, its function, WAF: their own columns), logs included.
    const behind = Math.round((redirectCost.total - wafOn) * 10_000) / 10_000;
    out.push({
      name: 'redirect $ / 1M behind the front door, logs included',
      limit: `<= ${budgets.redirectBehindFrontDoorUsd}`,
      measured: `${behind}`,
      pass: behind <= budgets.redirectBehindFrontDoorUsd,
    });
    const allIn = Math.round(redirectCost.total * 10_000) / 10_000;
    out.push({
      name: 'redirect $ / 1M all-in with WAF',
      limit: `<= ${budgets.redirectAllInWithWafUsd}`,
      measured: `${allIn}`,
      pass: allIn <= budgets.redirectAllInWithWafUsd,
    });
  }
  const queries = r.analytics.flatMap((level) =>
    [level, level.compacted].flatMap((lake) => lake.queries.map((q) => ({ level: lake, q }))),
  );
  const unpruned = queries.filter(({ level, q }) => !q.prunedToScope || q.bytesRead >= level.lakeBytes);
  const biggest = r.analytics.at(-1);
  const maxShare = biggest ? Math.max(...biggest.queries.map((q) => q.bytesRead / biggest.lakeBytes)) : 0;
  if (r.analytics.length)
    out.push({
      name: 'analytics queries read only their workspace and range',
      limit: 'files in scope only',
      measured: unpruned.length
        ? `${unpruned.length} queries read outside their scope`
        : `all ${queries.length} queries; at most ${(maxShare * 100).toFixed(1)}% of the lake at ${biggest?.events.toLocaleString('en-US')} events`,
      pass: unpruned.length === 0 && queries.length > 0,
    });
  if (biggest) {
    const json = must(
      biggest.queries.find((q) => q.route === 'link analytics (90d)'),
      'link analytics (90d) query on JSON',
    );
    const parquet = must(
      biggest.compacted.queries.find((q) => q.route === 'link analytics (90d)'),
      'link analytics (90d) query compacted',
    );
    out.push({
      name: `link analytics 90d on DuckDB, ${biggest.events.toLocaleString('en-US')} events, compacted vs JSON-only`,
      limit: 'reported',
      measured: `${parquet.ms} ms, ${mib(parquet.bytesRead)} MiB read (JSON-only: ${json.ms} ms, ${mib(json.bytesRead)} MiB)`,
      pass: parquet.prunedToScope,
    });
    const usd = dashboardViewUsdFor(parquet.queryBytes, biggest.workspaceEvents);
    out.push({
      name: 'one dashboard view deployed (link 90d), workspace with 1M events in 90 days',
      limit: `< $${budgets.dashboardViewUsd}`,
      measured: `$${usd.toFixed(6)} (${parquet.queryBytes.length} queries, scaled from ${biggest.workspaceEvents.toLocaleString('en-US')} events: Athena $5/TB, 10 MB minimum each)`,
      pass: usd < budgets.dashboardViewUsd,
    });
  }
  // The lake layout's budget, judged with the analytics section (a partial run without it leaves it out).
  if (r.analytics.length) {
    const partitions = activePartitionsFor(10_000);
    out.push({
      name: 'Firehose active partitions, 10,000 workspaces sending in the same minute',
      limit: `<= ${FIREHOSE_ACTIVE_PARTITION_LIMIT}`,
      measured: `${partitions} (${LAKE_SHARDS} shards x 3 hours in flight)`,
      pass: partitions <= FIREHOSE_ACTIVE_PARTITION_LIMIT,
    });
  }
  return out;
};

/** The lake model's lines (bench/lake-cost.ts; `npm run -s bench:lake` prints the whole table). */
const rulesBudgets = ({ matcher, variants }: RulesBench): BudgetResult[] => [
  {
    name: `redirect rules matcher, worst case (${matcher.rules} rules x ${matcher.conditions} conditions, no match), p99`,
    limit: `<= ${budgets.rulesMatcherP99Us} µs`,
    measured: `${matcher.p99Us} µs (p50 ${matcher.p50Us} µs, ${matcher.samples} clicks)`,
    pass: matcher.p99Us <= budgets.rulesMatcherP99Us,
  },
  {
    name: `A/B split at 50/50 over ${variants.visitors} visitors, each side; the same visitor always on the same side`,
    limit: `${budgets.variantShareMinPercent}-${budgets.variantShareMaxPercent} %, stable`,
    measured: `${variants.sharesPercent.join(' / ')} %${variants.stable ? ', stable' : ', NOT stable'}`,
    pass:
      variants.stable &&
      variants.sharesPercent.every(
        (share) => share >= budgets.variantShareMinPercent && share <= budgets.variantShareMaxPercent,
      ),
  },
];

const lakeBudgets = (lake: LakeModelSummary): BudgetResult[] => {
  const GiB = 1024 ** 3;
  return [
    {
      name: '90-day link view on the built lake layout (model: S3 LIST + GET and Athena bytes, both queries)',
      limit: `<= $${budgets.lakeViewUsd}`,
      measured: `$${lake.viewUsd.toFixed(5)} (daily files in monthly partitions, hourly today, gzip raw tail)`,
      pass: lake.viewUsd <= budgets.lakeViewUsd,
    },
    {
      name: 'compaction planner: a week of missed runs at the viral plan (gzip raw objects)',
      limit: `largest unit <= ${(lake.unitBoundBytes / GiB).toFixed(0)} GiB (half the cutoff), backlog clears`,
      measured: `largest unit ${(lake.largestUnitScanBytes / GiB).toFixed(2)} GiB, ${lake.units} units, ${Number.isFinite(lake.runsToClear) ? `${lake.runsToClear} runs to clear` : 'never clears'}`,
      pass: lake.largestUnitScanBytes <= lake.unitBoundBytes && Number.isFinite(lake.runsToClear),
    },
    {
      name: 'gzip ratio of raw objects (our event lines; the local sink objects)',
      limit: 'reported',
      measured: `${lake.gzipRatio.toFixed(2)}x; ${lake.sinkRatio.toFixed(2)}x`,
      pass: lake.gzipRatio > 1,
    },
    {
      name: 'daily merge, one workspace-day merged alone',
      limit: 'reported',
      measured: `$${lake.dailyMergeUsdPerWorkspaceDay.toFixed(6)}`,
      pass: true,
    },
  ];
};

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const table = (head: string[], rows: Array<Array<string | number>>) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** What was changed in the code to meet the budgets (docs/benchmarks.md explains each at length). */
export const notes = [
  'Config without zod (shared/config/config.ts): plain checks, still validated once at cold start. Every Lambda reads config, so zod (~83 KiB, several ms of init) was in every bundle, the redirect included.',
  'Event record without zod (shared/events/event-record.ts): a plain interface and field list; the zod schema moved to event-record-schema.ts (tests, Glue columns). The redirect builds events, so zod reached it here too.',
  'Runtime schemas on zod/mini (shared/schemas/zod-mini.ts) instead of classic zod: ~31 KiB instead of ~95 KiB per v1 handler; same rules, messages and OpenAPI document.',
  'One route row per bundle (shared/routes/typed-route.ts): the entry imports its own route object; the other rows, the schema modules only they use and the table itself (~5 KiB) stay out of the Lambdas (plain object rows, package marked free of import side effects).',
  'linkIdPathSchema in its own module: zod schema construction is not tree-shaken, so GET/archive/analytics handlers built every create/patch schema at init (-16 KiB on links-get).',
  'ICU country names (Intl.DisplayNames, ~10 ms to build) built on first use instead of at module init (shared/analytics/query/analytics-rows.ts): analytics init went from 1.16-1.32x to about 1.0-1.18x the floor; a cold start answered from the analytics cache never builds them.',
  'Multipart forms parsed by the runtime (Response.formData(), undici in Node) instead of busboy (~23 KiB, ~3.5 ms init): the legacy creates went from 1.2999x to about 1.24x the floor in size.',
  'Issue 15 put back the official AWS clients (Firehose, since replaced by Kinesis in issue 19, and Athena), ua-parser-js 1.x and Powertools Logger + Metrics (~32 KiB) and re-based each floor on the clients its route calls; bundle sizes are now reported without a budget, and the budgets are on init time (docs/benchmarks.md, "Issue 15" and "Cold start: init-time ratios").',
  'Cold-start processes start with the deployed NODE_OPTIONS (--enable-source-maps, lib/bundle-settings.ts), floor included.',
  "Init is the import's CPU time inside the child process, a handler's runs interleaved with its floor's (order alternating), median of the runs, twice the runs for a handler near its budget: wall time on a shared machine measured the wait for a core and made the budgets flip between runs.",
];

/** The report as Markdown. */
export const toMarkdown = (r: BenchResults): string => {
  const lines: string[] = [];
  lines.push(`# Benchmark report (${r.mode})`, '');
  lines.push(
    `${r.takenAt}, Node ${r.node}, ${r.machine.cpus} x ${r.machine.model}, ${Math.round(r.seconds)} s. Loopback only; DynamoDB Local.`,
    '',
  );

  lines.push('## Budgets', '');
  lines.push(
    table(
      ['budget', 'limit', 'measured', 'result'],
      r.budgets.map((b) => [b.name, b.limit, b.measured, b.pass ? 'pass' : '**FAIL**']),
    ),
    '',
  );

  // A partial run (--cold-start, --analytics-events) prints only the sections it measured.
  if (r.coldStart.rows.length > 0) {
    const c = r.coldStart;
    const confirmed = c.confirmed.length
      ? `then the ${c.confirmed.length} within ${CONFIRM_MARGIN} of ${c.confirmed.length === 1 ? 'its' : 'their'} budget (${c.confirmed.join(', ')}) ran ${c.samples} times more, likewise`
      : `none came within ${CONFIRM_MARGIN} of its budget (which runs a handler as many times again)`;
    lines.push('## 1. Cold start: module init vs the floor (bundle sizes informational)', '');
    lines.push(
      `Each handler's floor is a bundle of the bare SDK clients of the AWS services its route calls (bench/floor-handler.ts): DynamoDB (GetItem), plus Kinesis (PutRecords, the event stream) and SQS (SendMessage, the event spool) where it sends events, plus Secrets Manager (GetSecretValue, the origin-verify secret) on the edge and the v1 routes (the console distribution's origin check reads it), plus Athena (start, poll, results, stop) for analytics. Init is the CPU time (user + system, all threads) of importing the bundle, measured inside a fresh Node process started with the deployed NODE_OPTIONS. Each handler ran ${c.samples} times, its floor once beside every ${HANDLER_RUNS_PER_FLOOR_RUN} runs of its handlers (before them in one round, after them in the next), ${c.lanes} process${c.lanes === 1 ? '' : 'es'} at a time; ${confirmed}. A handler's init is the median of its runs, a floor's the median of all its runs. Wall time is shown for information (on a shared machine it mostly measures the wait for a core). Sizes have no budget.`,
      '',
    );
    lines.push(
      table(
        ['floor', 'KiB', 'runs', 'init CPU ms', 'init wall ms'],
        c.floors.map((f) => [f.floor, kib(f.bytes), f.runs, f.initMs, f.wallMs]),
      ),
      '',
    );
    lines.push(
      table(
        ['handler', 'floor', 'KiB', 'size x floor', 'runs', 'init CPU ms', 'init x floor', 'budget', 'init wall ms'],
        c.rows.map((row) => [
          row.handler === REDIRECT ? `**${row.handler}**` : row.handler,
          row.floor,
          kib(row.bytes),
          row.sizeRatio,
          row.runs,
          row.initMs,
          row.initRatio,
          `<= ${initLimitOf(row.handler)}x`,
          row.wallMs,
        ]),
      ),
      '',
    );
  }

  if (r.latency.length > 0) {
    lines.push('## 2. Warm hot-path latency (in-process bundle invocations vs the bare SDK)', '');
    lines.push(
      table(
        [
          'operation',
          'DynamoDB calls',
          'samples',
          'ours p50 ms',
          'ours p99 ms',
          'bare p50 ms',
          'bare p99 ms',
          'p50 ours/bare',
        ],
        r.latency.map((l) => [
          l.name,
          l.calls.join(' + '),
          l.samples,
          l.ours.p50,
          l.ours.p99,
          l.bare.p50,
          l.bare.p99,
          l.p50Ratio,
        ]),
      ),
      '',
    );

    if (r.limiter) {
      const l = r.limiter;
      lines.push(
        '### Rate limiter overhead (same bundle, limiter on vs RATE_LIMITS=off: the side without it makes none of its calls)',
        '',
      );
      lines.push(
        table(
          [
            'operation',
            'samples',
            'with p50 ms',
            'with p99 ms',
            'without p50 ms',
            'without p99 ms',
            'overhead p50 ms',
            'p50 with/without',
            'calls added',
            'limiter $ per million',
          ],
          [
            [
              l.operation,
              l.samples,
              l.withLimiter.p50,
              l.withLimiter.p99,
              l.withoutLimiter.p50,
              l.withoutLimiter.p99,
              l.overheadP50Ms,
              l.p50Ratio,
              l.callsAdded.join(' + '),
              l.costPerMillionUsd,
            ],
          ],
        ),
        '',
      );
    }
  }

  if (r.capacity.length > 0) {
    lines.push('## 3. DynamoDB work and cost per million operations', '');
    lines.push(
      `Units from ReturnConsumedCapacity (TOTAL) as DynamoDB Local reports them${r.capacity.every((c) => c.reported) ? ' (reported for every call)' : ' (some calls did not report: marked)'}. ` +
        `Cost: Lambda arm64 at ${r.cost.memoryMb} MB for the measured warm p50 duration (rounded up to 1 ms), HTTP API request (service API) or, for edge operations, the front door in its own columns (CloudFront HTTPS request, viewer-request CloudFront Function, WAF request with WAF on), DynamoDB on-demand units, events (a Kinesis PUT payload unit per record, and Firehose reading the stream: ${r.cost.eventBytes} B per event line, rounded to 5 KB per record, and dynamic partitioning), the click counter consumer's share of each click at the batch size named in the row (one counter update and one consumer invocation per batch of one link's clicks), CloudWatch Logs ingestion (the function's own lines as measured, plus ${telemetryAssumptions.platformLogBytesPerInvocation} B of Lambda platform lines per invocation) and X-Ray traces recorded (${telemetryAssumptions.clickPathTraceRate * 100}% on the click path, ${telemetryAssumptions.defaultTraceRate * 100}% elsewhere); prices of ${r.cost.pricesTakenOn} (bench/prices.ts), USD.`,
      '',
    );
    lines.push(
      table(
        [
          'operation',
          'DynamoDB calls',
          'RCU',
          'WCU',
          'events',
          'duration ms',
          'log B',
          'Lambda $',
          'HTTP API $',
          'CloudFront $',
          'CF Function $',
          'WAF $',
          'DynamoDB $',
          'Events $',
          'Counters $',
          'Logs $',
          'X-Ray $',
          'total $ / 1M',
        ],
        r.capacity.map((c) => {
          const cost = must(
            r.cost.rows.find((x) => x.operation === c.operation),
            `cost of ${c.operation}`,
          );
          const calls = summarizeCalls(c.calls);
          return [
            c.name,
            calls,
            `${c.read}${c.reported ? '' : ' (not reported)'}`,
            c.write,
            c.events,
            r.durationsMs[c.operation] ?? '',
            c.logBytes,
            cost.lambda,
            cost.httpApi,
            cost.cloudFront,
            cost.cloudFrontFunction,
            cost.waf,
            cost.dynamodb,
            cost.events,
            cost.counters,
            cost.logs,
            cost.xray,
            `**${cost.total}**`,
          ];
        }),
      ),
      '',
    );

    const work = r.cost.counterWork;
    if (work) {
      lines.push(
        `Counters: a click writes no counter itself; the consumer of the event stream makes one update per link per batch. The **Counters $** column is a click's share at the hot link's batch size (${work.hotClicksPerBatch} clicks of one link per batch: one ${work.counterWriteUnits}-WCU update of the ${work.linkItemBytes}-byte link item and one consumer invocation of ${work.consumerDurationMs} ms at ${work.consumerMemoryMb} MB per batch). A link clicked once per batch pays one update and one invocation per click: $${r.cost.coldLinkCountersPerMillion} per million clicks. Exact counts under duplicates add, per link and day with clicks, one settle after each compaction (a ${work.settleReadUnits}-RCU consistent read and a ${work.settleWriteUnits}-WCU update; in the column at one per batch): a link clicked once per hour pays it per click, $${r.cost.coldLinkCountersWithSettlePerMillion ?? 'n/a'} per million clicks in all. Stream shard-hours ($0.015 each) are fixed, not per click (docs/event-stream.md).`,
        '',
      );
    }
    const audit = r.cost.audit;
    if (audit) {
      lines.push(
        `Audit log: each change writes its audit entry in its own transaction (docs/audit-log.md). What that costs each audited operation, included in its row above: the entry (and, for a bulk chunk, one index item per further link) at 2 write units per KB in the transaction, 1 per KB on each index it is in (action, resource, key; KEYS_ONLY), and the storage it takes (items and index entries with DynamoDB's 100 bytes each) at $${prices.dynamoStorageGbMonth} per GB-month, kept for the retention (400 days by default). The redirect writes ${audit.redirectAuditItems} audit items.`,
        '',
        table(
          [
            'operation',
            'entries',
            'index items',
            'table WCU',
            'index WCU',
            'audit WCU',
            'audit $ / 1M',
            '% of the operation',
            'bytes stored',
            'storage $ / 1M / month',
          ],
          audit.rows.map((a) => [
            a.name,
            a.entries,
            a.indexItems,
            a.tableWriteUnits,
            a.indexWriteUnits,
            a.writeUnits,
            `**${a.perMillion}**`,
            `${a.shareOfOperation}%`,
            a.storedBytes,
            a.storagePerMillionPerMonth,
          ]),
        ),
        '',
      );
    }
    const kept = r.cost.keptFailures;
    if (kept) {
      lines.push(
        `Keeping failures: a batch the click counter consumer gives up on is kept whole in S3 (the on-failure destination, docs/event-stream.md): one PutObject per batch, the invocation record stored ${kept.keptDays} days in S3 Standard (measured: ${kept.fullBatchBytes} B for a batch of ${kept.rows[0]?.recordsPerBatch ?? ''} clicks of ${r.cost.eventBytes} B, ${kept.singleRecordBytes} B for one), and its replay (one GET per batch, one LIST per 1,000). It costs only for clicks that fail: nothing while the consumer keeps up. The share of clicks kept is each row's assumption. Stream retention costs nothing more: the stream keeps records 24 h (in the shard-hour price) and the consumers give up at 20 h; keeping records 7 days instead would add $${kept.extendedRetentionPerShardMonth} per provisioned shard a month.`,
        '',
        table(
          ['case', 'S3 PUT $', 'S3 storage $', 'replay $', 'total $ / 1M clicks'],
          kept.rows.map((k) => [k.case, k.put, k.storage, k.replay, `**${k.total}**`]),
        ),
        '',
      );
    }
  }

  if (r.throughput.length > 0) {
    lines.push('## 4. Throughput of the local server (loopback, autocannon)', '');
    lines.push(
      table(
        ['target', 'connections', 'seconds', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
        r.throughput.map((t) => [
          t.name,
          t.connections,
          t.seconds,
          t.requests,
          t.requestsPerSecond,
          t.latencyP50Ms,
          t.latencyP99Ms,
          t.errors,
        ]),
      ),
      '',
    );
  }

  if (r.analytics.length > 0) {
    lines.push('## 5. Analytics scale (DuckDB over the local lake)', '');
    lines.push(
      table(
        [
          'events',
          'lake',
          'generate / compact s',
          'lake files',
          'lake MiB',
          'route',
          'ms (median)',
          'files read',
          'MiB read',
          '% of lake',
          'in scope',
        ],
        r.analytics.flatMap((level) =>
          (
            [
              ['JSON', level.generateSeconds, level],
              ['compacted', level.compacted.compactSeconds, level.compacted],
            ] as const
          ).flatMap(([layout, seconds, lake]) =>
            lake.queries.map((q) => [
              level.events.toLocaleString('en-US'),
              layout,
              seconds,
              lake.lakeFiles,
              mib(lake.lakeBytes),
              q.route,
              q.ms,
              q.filesRead,
              mib(q.bytesRead),
              ((q.bytesRead / lake.lakeBytes) * 100).toFixed(1),
              q.prunedToScope ? 'yes' : '**no**',
            ]),
          ),
        ),
      ),
      '',
    );
  }

  if (r.hotLink) lines.push(...hotLinkMarkdown(r.hotLink));
  if (r.edgeHotLinks) lines.push(...edgeHotLinksMarkdown(r.edgeHotLinks, table));
  if (r.hotKeys) lines.push(...hotKeysMarkdown(r.hotKeys));

  lines.push('## Notes: code changes made to meet the budgets', '');
  for (const note of notes) lines.push(`- ${note}`);
  lines.push('');
  return lines.join('\n');
};

/** "GetItem x2 + UpdateItem": consecutive equal calls counted. */
export const summarizeCalls = (calls: string[]): string => {
  const parts: Array<[string, number]> = [];
  for (const call of calls) {
    const last = parts.at(-1);
    if (last && last[0] === call) last[1]++;
    else parts.push([call, 1]);
  }
  return parts.map(([c, n]) => (n > 1 ? `${c} x${n}` : c)).join(' + ');
};

export { pricesTakenOn };

/** The hot link's budgets: no visitor error, no throttle that loses a click, exact counts, p99 within 1.5x a cold link's. */
export const hotLinkBudgets = (h: HotLinkResult): BudgetResult[] => [
  {
    name: 'hot link: errors to visitors',
    limit: '0',
    measured: `${h.hot.visitorErrors + h.cold.visitorErrors} of ${h.hot.sent + h.cold.sent}`,
    pass: h.hot.visitorErrors + h.cold.visitorErrors === 0,
  },
  {
    name: 'hot link: clicks counted / sent',
    limit: 'equal (no click lost to a throttle)',
    measured: `hot ${h.hot.counted} / ${h.hot.sent}, cold ${h.cold.counted} / ${h.cold.sent} (${h.throttles.total} throttled calls: ${h.throttles.write} write, ${h.throttles.read} read)`,
    pass: h.hot.counted === h.hot.sent && h.cold.counted === h.cold.sent,
  },
  {
    name: 'hot link: rate achieved (the run means something)',
    limit: `>= 90% of ${h.hotRate + h.coldRate} clicks/s`,
    measured: `${h.achievedPerSecond} clicks/s`,
    pass: h.achievedPerSecond >= 0.9 * (h.hotRate + h.coldRate),
  },
  {
    name: 'hot link p99 / cold link p99, same run',
    limit: `<= ${budgets.hotLinkP99VsCold}`,
    measured: `${h.p99Ratio} (${h.hot.p99Ms} / ${h.cold.p99Ms} ms)`,
    pass: h.p99Ratio <= budgets.hotLinkP99VsCold,
  },
];

export const hotLinkMarkdown = (h: HotLinkResult): string[] => [
  '## 6. Hot link (one link at 10x the scaled per-key limits, with the limit-enforcing DynamoDB proxy)',
  '',
  `DynamoDB's per-key limits scaled down (${h.limits.writeUnitsPerSecond} write and ${h.limits.readUnitsPerSecond} read units per key per second, 1/100 of the deployed ones) by the fault proxy; the hot link at ${h.hotRate} clicks/s and a cold link at ${h.coldRate} clicks/s for ${h.seconds} s (achieved: ${h.achievedPerSecond} clicks/s of ${h.hotRate + h.coldRate} planned), through the built redirect bundle on ${h.instances} simulated instances (open loop). Answer: until the visitor had the whole response; duration: the whole invocation (work after the answer included). Counts read through GET /v1/links after they settled (${h.settleMs} ms after the last click). ${h.dynamoCalls} DynamoDB calls through the proxy; ${h.throttles.total} throttled (${h.throttles.write} write, ${h.throttles.read} read).`,
  '',
  table(
    [
      'link',
      'clicks/s',
      'sent',
      'counted',
      'visitor errors',
      'answer p50 ms',
      'answer p99 ms',
      'duration p50 ms',
      'duration p99 ms',
    ],
    [
      [
        'hot',
        h.hotRate,
        h.hot.sent,
        h.hot.counted,
        h.hot.visitorErrors,
        h.hot.p50Ms,
        h.hot.p99Ms,
        h.hot.durationP50Ms,
        h.hot.durationP99Ms,
      ],
      [
        'cold',
        h.coldRate,
        h.cold.sent,
        h.cold.counted,
        h.cold.visitorErrors,
        h.cold.p50Ms,
        h.cold.p99Ms,
        h.cold.durationP50Ms,
        h.cold.durationP99Ms,
      ],
    ],
  ),
  '',
];

/** The scaled-down production load's budgets: no throttled write on the two sharded writers, no event lost, the limit exact. */
export const hotKeysBudgets = (h: HotKeysBenchResult): BudgetResult[] => [
  {
    name: `hot keys: throttled writes, event log and limiter (${h.seconds} modelled s at 1/${Math.round(1 / h.scale)})`,
    limit: `${budgets.hotKeysThrottledWrites}`,
    measured: `${h.eventLogThrottled} event log, ${h.limiterThrottled} limiter (${h.writeThrottles} throttled calls, ${h.unprocessed} unprocessed entries in all)`,
    pass:
      h.eventLogThrottled + h.limiterThrottled + h.writeThrottles + h.unprocessed <= budgets.hotKeysThrottledWrites &&
      h.failedCalls === 0,
  },
  {
    name: 'hot keys: events lost (logged, then read back by replay)',
    limit: `${budgets.hotKeysLostEvents}`,
    measured: `${h.eventsLost} of ${h.eventsSent} (${h.eventsRead} read, ${h.eventsOutOfOrder} out of order)`,
    pass: h.eventsLost <= budgets.hotKeysLostEvents && h.eventsRead === h.eventsSent && h.eventsOutOfOrder === 0,
  },
  {
    name: 'hot keys: requests admitted by the sharded limiter / its limit',
    limit: 'equal',
    measured: `${h.admitted} / ${h.admittedAllowed}`,
    pass: h.admitted === h.admittedAllowed,
  },
  {
    name: 'hot keys: the control (one key per writer) is throttled (the load means something)',
    limit: '> 0 each',
    measured: `${h.control.eventLogThrottled} event log, ${h.control.limiterThrottled} limiter`,
    pass: h.control.eventLogThrottled > 0 && h.control.limiterThrottled > 0,
  },
];

export const hotKeysMarkdown = (h: HotKeysBenchResult): string[] => [
  '## 7. No hot keys (scaled-down production load on the event log and the rate limiter)',
  '',
  `DynamoDB's per-key limits and the viral plan both scaled to 1/${Math.round(1 / h.scale)} in the fault proxy: ${h.perKeyWriteUnits} write units per key per second; one workspace publishing ${h.eventsPerSecond} \`link.clicked\` events/s (${h.eventWriteUnits} write units each) and sending ${h.requestsPerSecond} limited requests/s, for ${h.seconds} modelled seconds (a clock the load moves; ${Math.round(h.realSeconds)} s of real time). Event log over ${h.eventLogShards} keys, limiter up to ${h.limiterShards} shards (${h.limitedShards} for the limited workspace).`,
  '',
  table(
    ['', 'events sent', 'read back', 'lost', 'event log throttled', 'limiter throttled', 'admitted / limit'],
    [
      [
        'sharded',
        h.eventsSent,
        h.eventsRead,
        h.eventsLost,
        h.eventLogThrottled,
        h.limiterThrottled,
        `${h.admitted} / ${h.admittedAllowed}`,
      ],
      [
        `one key per writer (${h.control.seconds} s)`,
        '',
        '',
        '',
        h.control.eventLogThrottled,
        h.control.limiterThrottled,
        '',
      ],
    ],
  ),
  '',
];
