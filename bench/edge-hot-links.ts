/**
 * Hot links answered at the edge (docs/edge.md): what an edge-answered redirect costs beside the
 * origin-answered one, what the origin-answered redirect pays more with the hot set on, the round
 * trip the edge saves per region pair (a published latency table), and the viral link: 20,000
 * clicks/s on one link through the click counter consumer and the hot set's refresh and
 * discovery (DynamoDB Local and the loopback KeyValueStore), in modelled time.
 *
 * `npm run bench -- --edge-hot-links` runs this section alone. The viral run is a child process
 * (its own configuration, as bench/hot-keys.ts does).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { projectRoot } from '@shared/local/paths';
import { budgets, type BudgetResult } from './budgets';
import { costPerMillion, type CostPerMillion } from './cost';
import { prices } from './prices';

const GB = 1024 ** 3;
const MILLION = 1_000_000;
const round = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * The cost model's assumptions where nothing is measured: one real-time log line per request with
 * the fields the log consumer reads (time, request id, result type, status, method, host, path,
 * query, user agent, referrer, country, cookie: about 700 bytes; on-demand bills it as 1 KB in and
 * out), one Kinesis record per line, the log consumer at 512 MB taking 200 ms per batch of 1,000
 * lines (the full user-agent parser on each).
 */
export const edgeCostAssumptions = {
  logLineBytes: 700,
  logBatchLines: 1000,
  logConsumerMsPerBatch: 200,
  logConsumerMemoryMb: 512,
  /** The click event of the last full run (bench/results/latest.json: eventBytes) when this section runs alone. */
  referenceEventBytes: 728,
  /** The counter consumer's share of a click at the hot link's batch size, last full run (Counters $ of the redirect row). */
  referenceCountersUsd: 0.0016,
  /** Peak real-time log lines per second the provisioned log stream is sized for (1,000 records/s per shard). */
  peakLinesPerSecond: 20_000,
} as const;

export type LogStreamMode = 'provisioned' | 'on-demand';

/** The log stream's cost per million lines: written by CloudFront, read once by the log consumer. */
const logStreamPerMillion = (mode: LogStreamMode): number => {
  if (mode === 'provisioned') {
    const units = Math.max(1, Math.ceil(edgeCostAssumptions.logLineBytes / prices.kinesisPutPayloadUnitBytes));
    return MILLION * units * prices.kinesisPutPayloadUnit;
  }
  const billed =
    Math.ceil(edgeCostAssumptions.logLineBytes / prices.kinesisOnDemandRoundingBytes) *
    prices.kinesisOnDemandRoundingBytes;
  return ((MILLION * billed) / GB) * (prices.kinesisOnDemandInGb + prices.kinesisOnDemandOutGb);
};

/** The log consumer's invocations per million lines. */
const logConsumerPerMillion = (): number => {
  const a = edgeCostAssumptions;
  const perBatch =
    (a.logConsumerMemoryMb / 1024) * (a.logConsumerMsPerBatch / 1000) * prices.lambdaArmGbSecond + prices.lambdaRequest;
  return (MILLION / a.logBatchLines) * perBatch;
};

export interface EdgeCostLine {
  mode: LogStreamMode;
  /** Per million edge-answered redirects: the door (CloudFront request, function, WAF), then each item beyond it. */
  door: number;
  kvsRead: number;
  logLine: number;
  logStream: number;
  logConsumer: number;
  events: number;
  counters: number;
  beyondDoor: number;
  allIn: number;
  /** The origin-answered redirect with the hot set on: what it pays more (a store read, a log line, its put and read). */
  originExtra: number;
  originBehindDoor: number;
  originAllIn: number;
}

export interface EdgeHotLinksCost {
  /** Where the origin-answered redirect's figures come from. */
  redirectSource: 'measured' | 'budget';
  redirectBehindDoor: number;
  redirectAllIn: number;
  lines: EdgeCostLine[];
  /** Fixed: the provisioned log stream's shards for the peak, a month. */
  provisionedShardsAtPeak: number;
  provisionedShardMonthUsd: number;
  onDemandStreamMonthUsd: number;
}

/**
 * The edge-answered redirect priced per million: the door as the origin-answered redirect pays it
 * (CloudFront HTTPS request, the viewer-request function, WAF), then the store read, the real-time
 * log line, its Kinesis record written and read, the log consumer, and the click event and
 * counter work the consumer's event causes (as the origin's click does). `redirect`: the measured
 * origin-answered redirect row (a full run), else the redirect at its budgets.
 */
export const edgeHotLinksCost = (redirect?: CostPerMillion, eventBytes?: number): EdgeHotLinksCost => {
  const door = MILLION * (prices.cloudFrontHttpsRequest + prices.cloudFrontFunctionInvocation + prices.wafRequest);
  const events =
    redirect?.events ??
    costPerMillion({
      memoryMb: 512,
      durationMs: 0,
      readUnits: 0,
      writeUnits: 0,
      events: 1,
      eventBytes: eventBytes ?? edgeCostAssumptions.referenceEventBytes,
    }).events;
  const counters = redirect?.counters ?? edgeCostAssumptions.referenceCountersUsd;
  const redirectBehindDoor = redirect ? round(redirect.total - door) : budgets.redirectBehindFrontDoorUsd;
  const redirectAllIn = redirect ? round(redirect.total) : round(budgets.redirectBehindFrontDoorUsd + door);
  const kvsRead = MILLION * prices.cloudFrontKvsRead;
  const logLine = MILLION * prices.cloudFrontRealtimeLogLine;
  const logConsumer = logConsumerPerMillion();
  const lines = (['provisioned', 'on-demand'] as const).map((mode): EdgeCostLine => {
    const logStream = logStreamPerMillion(mode);
    const beyondDoor = kvsRead + logLine + logStream + logConsumer + events + counters;
    const originExtra = kvsRead + logLine + logStream + logConsumer;
    return {
      mode,
      door: round(door),
      kvsRead: round(kvsRead),
      logLine: round(logLine),
      logStream: round(logStream),
      logConsumer: round(logConsumer),
      events: round(events),
      counters: round(counters),
      beyondDoor: round(beyondDoor),
      allIn: round(door + beyondDoor),
      originExtra: round(originExtra),
      originBehindDoor: round(redirectBehindDoor + originExtra),
      originAllIn: round(redirectAllIn + originExtra),
    };
  });
  const shards = Math.ceil(edgeCostAssumptions.peakLinesPerSecond / 1000);
  return {
    redirectSource: redirect ? 'measured' : 'budget',
    redirectBehindDoor,
    redirectAllIn,
    lines,
    provisionedShardsAtPeak: shards,
    provisionedShardMonthUsd: round(shards * prices.kinesisShardHour * 730),
    onDemandStreamMonthUsd: round(prices.kinesisOnDemandStreamHour * 730),
  };
};

/**
 * The round trip the edge saves: an edge-answered redirect never goes from the CloudFront location
 * near the visitor to the stack's region and back. Modelled as the inter-region call latency of a
 * published table: "AWS Latency Index" (bytecode.tech, sitemap.bytecode.tech/aws-latency-index/),
 * web servers in four regions calling each other once a minute, average of Feb-Mar 2019, ms. A
 * visitor near the first region, the stack in the second.
 */
export const roundTripSaved = {
  source: 'AWS Latency Index, bytecode.tech (sitemap.bytecode.tech/aws-latency-index/), average Feb-Mar 2019',
  pairs: [
    { visitorNear: 'eu-west-1 (Ireland)', stack: 'us-west-2 (Oregon)', ms: 267 },
    { visitorNear: 'ap-southeast-2 (Sydney)', stack: 'us-west-2 (Oregon)', ms: 279 },
    { visitorNear: 'sa-east-1 (Sao Paulo)', stack: 'us-west-2 (Oregon)', ms: 366 },
    { visitorNear: 'sa-east-1 (Sao Paulo)', stack: 'eu-west-1 (Ireland)', ms: 368 },
    { visitorNear: 'ap-southeast-2 (Sydney)', stack: 'eu-west-1 (Ireland)', ms: 536 },
    { visitorNear: 'ap-southeast-2 (Sydney)', stack: 'sa-east-1 (Sao Paulo)', ms: 630 },
  ],
} as const;

/** The viral link's run: 20,000 clicks/s on one link, the refresh every minute, discovery by the counter consumer. */
export interface ViralLinkResult {
  clicksPerSecond: number;
  modelledSeconds: number;
  shards: number;
  batchClicks: number;
  batches: number;
  refreshIntervalSeconds: number;
  /** Modelled seconds from the first click to the link's entry in the store (null: never). */
  hotAfterSeconds: number | null;
  /** The refreshes that ran and the store's entries after each. */
  refreshes: Array<{ atSeconds: number; hot: number; puts: number; candidates: number }>;
  errors: number;
  sent: number;
  counted: number;
  wallSeconds: number;
}

export interface EdgeHotLinksResult {
  cost: EdgeHotLinksCost;
  viral: ViralLinkResult;
}

/** Runs the viral link in a child process against DynamoDB Local at `dynamoEndpoint`. */
export const measureViralLink = async (dynamoEndpoint: string): Promise<ViralLinkResult> => {
  // A plain process, not the local server's many-invocations one (its invoke-store scope).
  const { AWS_LAMBDA_MAX_CONCURRENCY: _scoped, ...env } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(projectRoot, 'bench', 'edge-hot-links.ts'), '--child'],
    {
      cwd: projectRoot,
      env: {
        ...env,
        DYNAMODB_ENDPOINT: dynamoEndpoint,
        TABLE_NAME: `bench-viral-${Date.now().toString(36)}`,
        LOCAL_LAKE_DIR: mkdtempSync(path.join(tmpdir(), 'bench-viral-lake-')),
        AWS_REGION: 'us-east-1',
        LOG_LEVEL: 'silent',
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ViralLinkResult;
};

const VIRAL = { clicksPerSecond: 20_000, modelledSeconds: 65, shards: 4, batchWindowMs: 500, intervalMs: 60_000 };

/**
 * The child: a tenant and one link; clicks at 20,000/s in modelled time, spread over the event
 * stream's shards and handed to the counter consumer's batch work (`countClickBatch`, nomination
 * on) every half second per shard; the hot set's refresh every minute (`refreshHotSet` through the
 * one writer, on the loopback KeyValueStore), its last run just before the first click (the worst
 * phase). Reports when the link's entry is in the store, errors, and clicks sent against counted.
 */
const child = async () => {
  const { createTableIfMissing } = await import('@shared/local/create-table');
  const { localServices } = await import('@shared/local/local-services');
  const { provideServices } = await import('@shared/runtime/services');
  const { bootstrapTenant } = await import('@shared/admin/bootstrap');
  const { insertLink } = await import('@shared/links/create-link');
  const { domainRepository } = await import('@shared/tenancy/domain-repository');
  const { linkRepository } = await import('@shared/links/link-repository');
  const { countClickBatch } = await import('@shared/clicks/count-click-batch');
  const { createHotSetWriter } = await import('@shared/edge/hot-links/kvs-writer');
  const { refreshHotSet } = await import('@shared/edge/hot-links/refresh-hot-set');
  const { hotStoreKey } = await import('@shared/edge/hot-links/hot-entry');
  const { localKvsClient, startLocalKvs } = await import('@shared/local/local-kvs-server');

  const admin = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTableIfMissing(admin, process.env.TABLE_NAME ?? '');
  admin.destroy();
  provideServices(localServices());
  const started = performance.now();
  const tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
  const domain = await domainRepository.findById(tenant.workspaceId, tenant.domainId);
  if (!domain) throw new Error('the bench tenant has no domain');
  const link = await insertLink(
    {
      workspaceId: tenant.workspaceId,
      linkType: 'SHORTLINK',
      domain,
      deepLinkAppId: null,
      url: 'https://example.com/viral',
    },
    {},
    { actor: { type: 'operator', name: 'bench' }, requestId: null, ip: null, userAgent: null },
  );
  const kvs = await startLocalKvs();
  const client = localKvsClient(kvs, { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' });
  const writer = createHotSetWriter(client, kvs.arn);
  const key = hotStoreKey(link.domain, link.key);

  // Modelled time from ten minutes into the current hour (no hour boundary inside the run).
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const t0 = hour + 10 * 60_000;
  const at = (ms: number) => new Date(t0 + ms);
  const perBatch = (VIRAL.clicksPerSecond * VIRAL.batchWindowMs) / 1000 / VIRAL.shards;
  const sequences = new Array<bigint>(VIRAL.shards).fill(
    49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136_588_898n,
  );
  let sent = 0;
  let errors = 0;
  let batches = 0;
  let hotAfterSeconds: number | null = null;
  const refreshes: ViralLinkResult['refreshes'] = [];
  let nextRefresh = VIRAL.intervalMs - 1;

  const refresh = async (ms: number) => {
    try {
      const result = await refreshHotSet(writer, [], at(ms));
      refreshes.push({ atSeconds: ms / 1000, hot: result.hot, puts: result.puts, candidates: result.candidates });
      if (hotAfterSeconds === null && kvs.entries.has(key)) hotAfterSeconds = ms / 1000;
    } catch {
      errors++;
    }
  };

  for (let ms = VIRAL.batchWindowMs; ms <= VIRAL.modelledSeconds * 1000; ms += VIRAL.batchWindowMs) {
    while (nextRefresh < ms) {
      await refresh(nextRefresh);
      nextRefresh += VIRAL.intervalMs;
    }
    for (let shard = 0; shard < VIRAL.shards; shard++) {
      const shardId = `shardId-00000000000${String(shard)}`;
      const records = Array.from({ length: perBatch }, (_, i) => {
        const clickMs = ms - VIRAL.batchWindowMs + Math.floor((i * VIRAL.batchWindowMs) / perBatch);
        const sequence = (sequences[shard] ?? 0n) + 1n;
        sequences[shard] = sequence;
        return {
          shardId,
          sequenceNumber: String(sequence),
          data: JSON.stringify({
            eventType: 'click',
            linkId: link.id,
            trafficType: 'human',
            timestamp: at(clickMs).toISOString(),
            eventId: `${String(shard)}-${String(sequence)}`,
          }),
        };
      });
      sent += records.length;
      batches++;
      try {
        await countClickBatch(records, true, at(ms));
      } catch {
        errors++;
      }
    }
  }
  const counted = (await linkRepository.findById(link.id, true))?.clicks ?? 0;
  client.destroy();
  await kvs.stop();
  const result: ViralLinkResult = {
    clicksPerSecond: VIRAL.clicksPerSecond,
    modelledSeconds: VIRAL.modelledSeconds,
    shards: VIRAL.shards,
    batchClicks: perBatch,
    batches,
    refreshIntervalSeconds: VIRAL.intervalMs / 1000,
    hotAfterSeconds,
    refreshes,
    errors,
    sent,
    counted,
    wallSeconds: round((performance.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
};

/** The section's budgets: the cost lines (provisioned log stream judged, on-demand reported) and the viral link. */
export const edgeHotLinksBudgets = ({ cost, viral }: EdgeHotLinksResult): BudgetResult[] => {
  const provisioned = cost.lines.find((l) => l.mode === 'provisioned');
  const onDemand = cost.lines.find((l) => l.mode === 'on-demand');
  const out: BudgetResult[] = [];
  if (provisioned) {
    out.push(
      {
        name: 'edge-answered redirect $ / 1M all-in with WAF (provisioned log stream)',
        limit: `<= ${budgets.edgeAnsweredAllInUsd}`,
        measured: `${provisioned.allIn}`,
        pass: provisioned.allIn <= budgets.edgeAnsweredAllInUsd,
      },
      {
        name: 'edge-answered redirect $ / 1M beyond CloudFront, its function and WAF (provisioned log stream)',
        limit: `<= ${budgets.edgeAnsweredBeyondDoorUsd}`,
        measured: `${provisioned.beyondDoor}`,
        pass: provisioned.beyondDoor <= budgets.edgeAnsweredBeyondDoorUsd,
      },
      {
        name: `origin-answered redirect $ / 1M behind the door, hot set on (redirect ${cost.redirectSource === 'measured' ? 'measured' : 'at its budget'} ${cost.redirectBehindDoor})`,
        limit: `<= ${budgets.originWithHotSetBehindDoorUsd}`,
        measured: `${provisioned.originBehindDoor}`,
        pass: provisioned.originBehindDoor <= budgets.originWithHotSetBehindDoorUsd,
      },
      {
        name: `origin-answered redirect $ / 1M all-in with WAF, hot set on (redirect ${cost.redirectSource === 'measured' ? 'measured' : 'at its budget'} ${cost.redirectAllIn})`,
        limit: `<= ${budgets.originWithHotSetAllInUsd}`,
        measured: `${provisioned.originAllIn}`,
        pass: provisioned.originAllIn <= budgets.originWithHotSetAllInUsd,
      },
    );
  }
  if (onDemand)
    out.push({
      name: 'edge-answered redirect $ / 1M with an on-demand log stream (1 KB in and out per line)',
      limit: 'reported',
      measured: `all-in ${onDemand.allIn}, beyond the door ${onDemand.beyondDoor}, origin-answered +${onDemand.originExtra}${onDemand.beyondDoor > budgets.edgeAnsweredBeyondDoorUsd ? ': over the budgets, hence the provisioned stream' : ''}`,
      pass: true,
    });
  out.push(
    {
      name: `viral link (${viral.clicksPerSecond.toLocaleString('en-US')} clicks/s): in the hot set after`,
      limit: `<= ${budgets.viralHotWithinSeconds} s (one refresh interval)`,
      measured: viral.hotAfterSeconds === null ? 'never' : `${viral.hotAfterSeconds} s (modelled)`,
      pass: viral.hotAfterSeconds !== null && viral.hotAfterSeconds <= budgets.viralHotWithinSeconds,
    },
    {
      name: 'viral link: errors, clicks counted / sent',
      limit: '0 errors, equal',
      measured: `${viral.errors} errors, ${viral.counted} / ${viral.sent}`,
      pass: viral.errors === 0 && viral.counted === viral.sent,
    },
  );
  return out;
};

export const edgeHotLinksMarkdown = (
  { cost, viral }: EdgeHotLinksResult,
  table: (head: string[], rows: Array<Array<string | number>>) => string,
): string[] => [
  '## 8. Hot links at the edge (cost model, round trip saved, viral link)',
  '',
  `Per million redirects, USD, prices of bench/prices.ts. The origin-answered redirect: ${cost.redirectSource === 'measured' ? 'measured in this run' : 'at its budgets (not measured in this mode)'}, ${cost.redirectBehindDoor} behind the door, ${cost.redirectAllIn} all-in. Assumed: a ${edgeCostAssumptions.logLineBytes}-byte real-time log line per request, one Kinesis record each, the log consumer ${edgeCostAssumptions.logConsumerMsPerBatch} ms per ${edgeCostAssumptions.logBatchLines} lines at ${edgeCostAssumptions.logConsumerMemoryMb} MB. Fixed, not per request: the provisioned log stream's ${cost.provisionedShardsAtPeak} shards for ${edgeCostAssumptions.peakLinesPerSecond.toLocaleString('en-US')} lines/s, $${cost.provisionedShardMonthUsd} a month; an on-demand stream $${cost.onDemandStreamMonthUsd} a month.`,
  '',
  table(
    [
      'log stream',
      'door',
      'store read',
      'log line',
      'log stream',
      'log consumer',
      'events',
      'counters',
      'beyond the door',
      'edge-answered all-in',
      'origin-answered + hot set, behind the door',
      'origin-answered + hot set, all-in',
    ],
    cost.lines.map((l) => [
      l.mode,
      l.door,
      l.kvsRead,
      l.logLine,
      l.logStream,
      l.logConsumer,
      l.events,
      l.counters,
      `**${l.beyondDoor}**`,
      `**${l.allIn}**`,
      l.originBehindDoor,
      l.originAllIn,
    ]),
  ),
  '',
  `Round trip saved by an edge-answered redirect (model): ${roundTripSaved.source}.`,
  '',
  table(
    ['visitor near', 'stack in', 'saved ms'],
    roundTripSaved.pairs.map((p) => [p.visitorNear, p.stack, p.ms]),
  ),
  '',
  `Viral link: ${viral.clicksPerSecond.toLocaleString('en-US')} clicks/s on one link for ${viral.modelledSeconds} modelled s over ${viral.shards} shards (${viral.batches} counter batches of ${viral.batchClicks} clicks, nomination on), the refresh every ${viral.refreshIntervalSeconds} s with its last run just before the first click; DynamoDB Local and the loopback KeyValueStore; ${viral.wallSeconds} s of wall time. In the hot set after ${viral.hotAfterSeconds ?? 'never'} s; ${viral.errors} errors; ${viral.counted} of ${viral.sent} clicks counted.`,
  '',
  table(
    ['refresh at s', 'candidates', 'hot', 'puts'],
    viral.refreshes.map((r) => [r.atSeconds, r.candidates, r.hot, r.puts]),
  ),
  '',
];

if (process.argv.includes('--child')) await child();
