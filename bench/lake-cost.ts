import { plannedRawPartitions } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { RAW_LATE_READ_HOURS, rawReadFrom } from '@shared/analytics/query/raw-read';
import { randomUUID, createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  ATHENA_BYTES_SCANNED_CUTOFF,
  GZIP_KEY_COLUMNS_PER_RAW_BYTE,
  planCompactionUnits,
  type CompactionUnit,
  type RawObjectListing,
} from '@shared/analytics/lake/compaction-units';
import { COMPACTION_GRACE_MS } from '@shared/analytics/lake/compaction-plan';
import { LAKE_SHARDS, RAW_FILE_EXTENSION, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { budgets } from './budgets';
import { blankEvent, type EventRecord } from '@shared/events/event-record';

/*
 * The event lake at production volume, modelled where the bench cannot write the volume: the
 * compression ratio of our event lines (measured), the S3 listing a week of missed compaction
 * runs leaves at the viral plan (synthetic, sized from Firehose's buffering), the compaction
 * planner over it, and what a 90-day view costs with S3 requests counted.
 */

/** Firehose's buffer (lib/event-pipeline.ts): an object is written every 64 MB of (uncompressed) records or 60 s. */
export const FIREHOSE_BUFFER_BYTES = 64 * 1024 * 1024;
export const FIREHOSE_BUFFER_SECONDS = 60;

/** The viral plan: ~26 GB of raw JSON an hour for one workspace (so one shard). */
export const VIRAL_JSON_BYTES_PER_HOUR = 26e9;
/** The default plan's busy workspace: 2,000 clicks a second (its own shard). */
export const BUSY_EVENTS_PER_SECOND = 2_000;
/** Every other shard: small workspaces, 20 events a second together. */
export const QUIET_EVENTS_PER_SECOND = 20;

/**
 * S3 Standard request prices, us-east-1 (https://aws.amazon.com/s3/pricing/): GET $0.0004 per
 * 1,000, LIST (with PUT, COPY, POST) $0.005 per 1,000. Athena: $5 per TB scanned, 10 MB minimum
 * per query (https://aws.amazon.com/athena/pricing/); Athena reads the objects with GET and
 * lists partitions with LIST on the account's bill.
 */
export const S3_GET_USD = 0.0004 / 1000;
export const S3_LIST_USD = 0.005 / 1000;
export const ATHENA_USD_PER_BYTE = 5 / 1e12;
export const ATHENA_MIN_BYTES = 10 * 1000 * 1000;

/** The i-th value, cycling. */
const cycle = <T>(values: readonly T[], i: number): T => values[i % values.length] as T;

const hex = (seed: string) => createHash('sha256').update(seed).digest('hex');

/** An event line as the edge writes it (uuid eventId, hashed visitor id), for the compression measurement. */
export const productionEvent = (i: number, at: number, workspaceId = 'ws_viral'): EventRecord => ({
  ...blankEvent({
    eventId: randomUUID(),
    timestamp: new Date(at + i * 7).toISOString(),
    eventType: i % 9 === 0 ? 'launch_view_impression' : 'click',
    workspaceId,
    trafficType: i % 10 === 0 ? 'bot' : 'human',
  }),
  linkId: `lnk_${hex(`link${i % 50}`).slice(0, 20)}`,
  domain: 'go.example.com',
  linkKey: `promo-${i % 50}`,
  linkType: 'SHORTLINK',
  visitorId: hex(`visitor${(i * 7919) % 20_000}`),
  country: cycle(['US', 'DE', 'FR', 'GB', 'IN', 'BR'], i),
  deviceType: cycle(['mobile', 'desktop', 'tablet'], i),
  platform: cycle(['ios', 'android', 'desktop'], i),
  browser: cycle(['Chrome', 'Mobile Safari', 'Firefox', 'Samsung Internet'], i),
  os: cycle(['iOS', 'Android', 'Windows', 'Mac OS'], i),
  referrerHost: cycle(['t.co', 'www.google.com', 'www.instagram.com', null], i),
  resolvedDestinationUrl: `https://shop.example.com/products/${i % 50}?utm_source=social&utm_campaign=launch`,
  responseKind: 'redirect',
  utmSource: cycle(['newsletter', 'twitter', null], i),
});

export interface CompressionMeasure {
  events: number;
  jsonBytes: number;
  gzipBytes: number;
  /** jsonBytes / gzipBytes. */
  ratio: number;
  /** Bytes of eventId + timestamp text per gzip byte (what the de-duplication side of a compaction statement reads). */
  keyBytesPerGzipByte: number;
}

/** Gzip (level 6, Firehose's GZIP) over one Firehose-like object of our event lines. */
export const measureCompression = (events = 20_000): CompressionMeasure => {
  const at = Date.parse('2026-11-20T10:00:00.000Z');
  const lines: string[] = [];
  let keyBytes = 0;
  for (let i = 0; i < events; i++) {
    const event = productionEvent(i, at);
    keyBytes += event.eventId.length + event.timestamp.length;
    lines.push(JSON.stringify(event));
  }
  const json = Buffer.from(lines.join('\n') + '\n');
  const gzip = gzipSync(json);
  return {
    events,
    jsonBytes: json.length,
    gzipBytes: gzip.length,
    ratio: json.length / gzip.length,
    keyBytesPerGzipByte: keyBytes / gzip.length,
  };
};

const HOUR = 3_600_000;

/** The de-duplication side's bound over gzip-compressed raw bytes (measured ~0.68 on our lines). */
export { GZIP_KEY_COLUMNS_PER_RAW_BYTE };

/**
 * The raw listing (keys and sizes, as ListObjectsV2 gives them) of `hours` hours ending at
 * `end`: the viral workspace's shard writes a 64 MB buffer every few seconds, every other shard
 * holds a busy default-plan workspace (one object a minute); objects as stored, uncompressed
 * JSON lines (`ratio` 1) or compressed by `ratio`.
 */
export const syntheticListing = (options: {
  end: number;
  hours: number;
  ratio: number;
  lineBytes: number;
}): RawObjectListing[] => {
  const out: RawObjectListing[] = [];
  /** Objects of one shard-hour at `perSecond` events: one per full buffer, or one per interval. */
  const objectsOf = (bytesPerHour: number): [number, number] => {
    const bytes = Math.min(FIREHOSE_BUFFER_BYTES, (bytesPerHour / 3600) * FIREHOSE_BUFFER_SECONDS);
    return [Math.ceil(bytesPerHour / bytes), bytes];
  };
  const shardLoad = (s: number) =>
    s === 0
      ? VIRAL_JSON_BYTES_PER_HOUR
      : (s === 1 ? BUSY_EVENTS_PER_SECOND : QUIET_EVENTS_PER_SECOND) * 3600 * options.lineBytes;
  for (let h = options.hours; h >= 1; h--) {
    const start = new Date(options.end - h * HOUR).toISOString();
    const [day, hour] = [start.slice(0, 10), start.slice(11, 13)];
    for (let s = 0; s < LAKE_SHARDS; s++) {
      const shard = String(s).padStart(2, '0');
      const [count, bytes] = objectsOf(shardLoad(s));
      for (let o = 0; o < count; o++)
        out.push({
          // Named as stored: the planner bounds a gzip object's de-duplication side by its `.gz` name.
          key: `${RAW_PREFIX}shard=${shard}/dt=${day}/hour=${hour}/firehose-${hour}-${String(o).padStart(4, '0')}${options.ratio > 1 ? '.json.gz' : '.json'}`,
          size: Math.ceil(bytes / options.ratio),
        });
    }
  }
  return out;
};

export interface BacklogPlan {
  hours: number;
  objects: number;
  bytes: number;
  units: CompactionUnit[];
  largestUnitScanBytes: number;
  /** Units one closed hour adds. */
  unitsPerHour: number;
  /** Runs to clear the backlog at UNITS_PER_RUN, while every hour adds its own units (Infinity: never). */
  runsToClear: number;
}

/**
 * Units one run completes (an assumption, not a measurement: AWS is unreachable from here): a
 * unit runs one SELECT and one UNLOAD over at most ~2.5 GiB of raw objects; at ~100 MB/s per
 * statement a unit takes about a minute, and a run has 12 minutes (the 15-minute timeout less
 * the deadline margin and the 2-minute reserve).
 */
export const UNITS_PER_RUN = 12;

/** The compaction plan of a week of missed runs at the viral plan, and how many runs clear it. */
export const planViralBacklog = (
  compression: CompressionMeasure,
  options: { hours?: number; gzip?: boolean } = {},
): BacklogPlan => {
  const hours = options.hours ?? 7 * 24;
  const ratio = options.gzip ? compression.ratio : 1;
  const now = Date.parse('2026-11-27T00:15:00.000Z');
  const end = now - COMPACTION_GRACE_MS - ((now - COMPACTION_GRACE_MS) % HOUR);
  const listing = syntheticListing({
    end,
    hours,
    ratio,
    lineBytes: compression.jsonBytes / compression.events,
  });
  // Each object's de-duplication bound by its name (gzip or not: keyColumnsPerRawByteOf).
  const plan = planCompactionUnits(listing, { now });
  const lastHour = new Date(end - HOUR).toISOString();
  const perHour = planCompactionUnits(
    listing.filter((o) => o.key.includes(`/dt=${lastHour.slice(0, 10)}/hour=${lastHour.slice(11, 13)}/`)),
    { now },
  ).units.length;
  let left = plan.units.length;
  let runs = 0;
  // Each hourly run does UNITS_PER_RUN units, oldest first; while it is behind, the hour that closed adds its own.
  while (left > 0 && runs < 10_000) {
    runs += 1;
    left = left > UNITS_PER_RUN ? left - UNITS_PER_RUN + perHour : 0;
  }
  return {
    hours,
    objects: listing.length,
    bytes: listing.reduce((sum, o) => sum + o.size, 0),
    units: plan.units,
    largestUnitScanBytes: Math.max(...plan.units.map((u) => u.estimatedScanBytes)),
    unitsPerHour: perHour,
    runsToClear: left > 0 ? Infinity : runs,
  };
};

export const CUTOFF_BYTES = ATHENA_BYTES_SCANNED_CUTOFF;

/**
 * Parquet reads per object: Athena reads a file's footer, then the column chunks it needs (at
 * least two GETs, ranged); a JSON object is read whole (one GET).
 */
export const GETS_PER_PARQUET_OBJECT = 2;

export interface ViewLayout {
  name: string;
  /** Partition prefixes a query lists: compacted and raw (Athena lists each projected partition). */
  compactedPartitions: number;
  rawPartitions: number;
  /** Objects a query opens. */
  compactedObjects: number;
  rawObjects: number;
  /** The layout the code builds today (the budget is checked on it). */
  built?: boolean;
}

export interface ViewCost extends ViewLayout {
  lists: number;
  gets: number;
  scannedBytes: number;
  usd: number;
}

/**
 * One dashboard view: `queries` queries (a link view runs 2: the aggregate and the recent
 * events), each listing its partitions and opening its objects, billed on its scanned bytes
 * (at least 10 MB).
 */
export const viewCost = (layout: ViewLayout, scannedBytesPerQuery: number, queries = 2): ViewCost => {
  const lists = queries * (layout.compactedPartitions + layout.rawPartitions);
  const gets = queries * (layout.compactedObjects * GETS_PER_PARQUET_OBJECT + layout.rawObjects);
  const athena = queries * Math.max(scannedBytesPerQuery, ATHENA_MIN_BYTES) * ATHENA_USD_PER_BYTE;
  return {
    ...layout,
    lists,
    gets,
    scannedBytes: queries * scannedBytesPerQuery,
    usd: lists * S3_LIST_USD + gets * S3_GET_USD + athena,
  };
};

/**
 * Raw hours a query reads (shared/analytics/query/raw-read.ts): from the watermark's hour, or
 * RAW_LATE_READ_HOURS before the current hour if earlier (always, when compaction keeps up),
 * through the current one. Older hours hold no raw objects once compacted.
 */
export const RAW_TAIL_HOURS = RAW_LATE_READ_HOURS + 1;
/**
 * Raw shard-hour partitions a query's predicates admit (Athena's projection lists each, empty
 * ones too): from the read start through the end of the window's last day, at worst (a view just
 * after midnight) 27 (plannedRawPartitions in analytics-sql.ts).
 */
export const rawPartitionsPerQuery = (): number =>
  Math.max(
    ...Array.from({ length: 24 }, (_, h) => {
      const now = new Date(Date.UTC(2026, 2, 15, h, 30));
      return plannedRawPartitions({
        window: analyticsWindow('90d', now),
        rawFrom: rawReadFrom(new Date(Date.UTC(2026, 2, 15, h - 1)).toISOString(), now),
      });
    }),
  );
/** The budget of one 90-day link view (both queries, S3 requests and Athena bytes): bench/budgets.ts. */
export const VIEW_BUDGET_USD = budgets.lakeViewUsd;
/** Objects in one shard-hour of the raw tail: Firehose writes one a minute for any shard with traffic. */
export const RAW_OBJECTS_PER_SHARD_HOUR = 60;

/** The 90-day window's dates at worst for the daily layout: the most merged days in the months its partitions cover. */
const worstMonthSpan = (days: number): { months: number; mergedFilesOpened: number } => {
  let worst = { months: 0, mergedFilesOpened: 0 };
  for (let d = 0; d < 366; d++) {
    const now = new Date(Date.UTC(2026, 0, 1) + d * DAY_MS + 10 * HOUR);
    const window = analyticsWindow('90d', now);
    const firstMonthStart = Date.parse(`${window.firstDay.slice(0, 7)}-01T00:00:00.000Z`);
    const today = Date.parse(`${window.lastDay}T00:00:00.000Z`);
    const months =
      (Number(window.lastDay.slice(0, 4)) - Number(window.firstDay.slice(0, 4))) * 12 +
      Number(window.lastDay.slice(5, 7)) -
      Number(window.firstDay.slice(5, 7)) +
      1;
    // Every merged day (before today) in those months has a daily file Athena opens (footer, then skips by statistics).
    const mergedFilesOpened = Math.round((today - firstMonthStart) / DAY_MS);
    if (days === 90 && mergedFilesOpened > worst.mergedFilesOpened) worst = { months, mergedFilesOpened };
  }
  return worst;
};
const DAY_MS = 86_400_000;

/**
 * The 90-day link view's layouts, from the deployed one before this work to the one built:
 * what each lists and opens. `todayHourly`: compacted files of today's closed hours (one per
 * hourly run, at worst 23). The built layout (daily files in monthly partitions, hourly today,
 * gzip raw tail) is the one the budget is checked on; monthly files for closed months are
 * priced to say whether they pay.
 */
export const ninetyDayLayouts = (days = 90): ViewLayout[] => {
  const hourly = days * 24;
  const rawTail = RAW_TAIL_HOURS * RAW_OBJECTS_PER_SHARD_HOUR;
  const rawPartitions = rawPartitionsPerQuery();
  const todayHourly = 23;
  const { months, mergedFilesOpened } = worstMonthSpan(days);
  return [
    {
      name: 'raw projected over the range, hourly compacted files (before the watermark read)',
      compactedPartitions: days,
      rawPartitions: hourly,
      compactedObjects: hourly,
      rawObjects: rawTail,
    },
    {
      name: 'raw past the watermark only, hourly compacted files (before the daily merge)',
      compactedPartitions: days,
      rawPartitions,
      compactedObjects: hourly,
      rawObjects: rawTail,
    },
    {
      name: 'raw past the watermark only, daily files in daily partitions (not built: LISTs)',
      compactedPartitions: days,
      rawPartitions,
      compactedObjects: days - 1 + todayHourly,
      rawObjects: rawTail,
    },
    {
      name: `**built**: gzip raw past the watermark, daily files in monthly partitions (${months} months, ${mergedFilesOpened} daily files opened at worst), hourly today`,
      built: true,
      compactedPartitions: months + 1,
      rawPartitions,
      compactedObjects: mergedFilesOpened + todayHourly,
      rawObjects: rawTail,
    },
    {
      name: 'the same with monthly files for closed months (not built)',
      compactedPartitions: months + 1,
      rawPartitions,
      compactedObjects: months - 1 + 31 + todayHourly,
      rawObjects: rawTail,
    },
  ];
};

/**
 * The daily merge of one workspace-day (athena-daily-merge.ts): its share of one UNLOAD statement
 * (up to 100 workspaces a statement, each billed at least 10 MB) reading the day's hourly Parquet
 * (24 files, footer + columns) and the daily rows' key columns, the file written (PUT, LIST
 * price), the hourly listing's share, the 24 deletes (free). `workspacesPerStatement` 1: a
 * workspace merged alone (the dearest case).
 */
export const dailyMergeUsd = (dayParquetBytes: number, workspacesPerStatement = 1): number =>
  24 * GETS_PER_PARQUET_OBJECT * S3_GET_USD +
  S3_LIST_USD * (1 + 24 / 1000) +
  (Math.max(dayParquetBytes * 1.5 * workspacesPerStatement, ATHENA_MIN_BYTES) * ATHENA_USD_PER_BYTE) /
    workspacesPerStatement;

/** A monthly file for a closed month: one statement over the month's daily files (~31), one PUT. */
export const monthlyMergeUsd = (monthParquetBytes: number): number =>
  31 * GETS_PER_PARQUET_OBJECT * S3_GET_USD +
  2 * S3_LIST_USD +
  Math.max(monthParquetBytes, ATHENA_MIN_BYTES) * ATHENA_USD_PER_BYTE;

/** Events in 90 days of the workspace the view budget is set for. */
export const VIEW_WORKSPACE_EVENTS = 1_000_000;
/** Compacted Parquet a query of that workspace reads (analytics bench, scaled from 10M events: 5.9 MB). */
export const VIEW_COMPACTED_BYTES_PER_QUERY = 5.9e6;

/** The ratio measured on what the local sink writes: our events through the real writer (gzip `.json.gz` objects). */
export const measureSinkCompression = async (
  events = 20_000,
): Promise<{ jsonBytes: number; storedBytes: number; objects: number; ratio: number }> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lake-ratio-'));
  try {
    const at = Date.parse('2026-11-20T10:00:00.000Z');
    const all = Array.from({ length: events }, (_, i) => productionEvent(i, at));
    // One send per Firehose-like buffer of 2,000 events (one object per partition and send).
    for (let i = 0; i < all.length; i += 2000) await createLocalLakeSink(dir).send(all.slice(i, i + 2000));
    const jsonBytes = all.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
    let storedBytes = 0;
    let objects = 0;
    for (const file of readdirSync(dir, { recursive: true }) as string[])
      if (file.endsWith(RAW_FILE_EXTENSION)) {
        storedBytes += statSync(path.join(dir, file)).size;
        objects += 1;
      }
    return { jsonBytes, storedBytes, objects, ratio: jsonBytes / storedBytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export interface LakeModelSummary {
  gzipRatio: number;
  sinkRatio: number;
  /** The week of missed runs at the viral plan, gzip raw objects. */
  largestUnitScanBytes: number;
  unitBoundBytes: number;
  units: number;
  runsToClear: number;
  viewUsd: number;
  viewBudgetUsd: number;
  dailyMergeUsdPerWorkspaceDay: number;
}

/**
 * The event lake at production volume, modelled (AWS is unreachable from here): gzip ratio of
 * our event lines (measured, and on the local sink's real objects), the compaction plan of a
 * week of missed runs at the viral plan, and a 90-day link view priced with S3 LIST and GET
 * requests and Athena's scanned bytes, per layout; the daily merge's own cost. Failures: a
 * compaction unit over half the cutoff, a gzip backlog that never clears, the built layout over
 * the view budget.
 */
export const lakeModelReport = async (): Promise<{
  markdown: string;
  failures: string[];
  summary: LakeModelSummary;
}> => {
  const GiB = 1024 ** 3;
  const failures: string[] = [];
  const lines: string[] = ['## Event lake at production volume (model: bench/lake-cost.ts)', ''];
  const compression = measureCompression();
  const sink = await measureSinkCompression();
  lines.push(
    `- Gzip on our event lines: ${(compression.jsonBytes / compression.events).toFixed(0)} B a line, ratio **${compression.ratio.toFixed(2)}** (${compression.events} lines, ${compression.jsonBytes} -> ${compression.gzipBytes} bytes); on the objects the local sink writes (the same events, ${sink.objects} \`.json.gz\` objects): ratio ${sink.ratio.toFixed(2)} (${sink.jsonBytes} -> ${sink.storedBytes} bytes)`,
  );
  let gzipBacklog: BacklogPlan | undefined;
  for (const gzip of [false, true]) {
    const backlog = planViralBacklog(compression, { gzip });
    if (gzip) gzipBacklog = backlog;
    lines.push(
      `- Compaction after a week of missed runs at the viral plan (${gzip ? 'gzip (built)' : 'uncompressed'} raw objects): ${backlog.objects.toLocaleString('en-US')} objects, ${(backlog.bytes / 1e9).toFixed(0)} GB, ${backlog.units.length} units (${backlog.unitsPerHour} an hour), **largest unit ${(backlog.largestUnitScanBytes / GiB).toFixed(2)} GiB** estimated scan (bound ${(CUTOFF_BYTES / 2 / GiB).toFixed(0)} GiB), **runs to clear** at ${UNITS_PER_RUN} units a run: ${Number.isFinite(backlog.runsToClear) ? backlog.runsToClear : 'never (more units an hour than a run does)'}`,
    );
    if (backlog.largestUnitScanBytes > CUTOFF_BYTES / 2)
      failures.push(`compaction unit over half the cutoff (${gzip ? 'gzip' : 'uncompressed'})`);
    if (gzip && !Number.isFinite(backlog.runsToClear)) failures.push('gzip backlog never clears');
  }
  // Scanned per query: the workspace's compacted Parquet, plus its raw tail (gzip) in its shard.
  const rawTailBytes =
    (VIEW_WORKSPACE_EVENTS / (90 * 24)) * RAW_TAIL_HOURS * (compression.gzipBytes / compression.events);
  const scannedPerQuery = VIEW_COMPACTED_BYTES_PER_QUERY + rawTailBytes;
  lines.push('', '| 90-day link view layout | LIST | GET | scanned | USD per view |', '|---|---|---|---|---|');
  let builtUsd = Infinity;
  const costs = ninetyDayLayouts().map((layout) => viewCost(layout, scannedPerQuery));
  for (const cost of costs) {
    lines.push(
      `| ${cost.name} | ${cost.lists} | ${cost.gets} | ${(cost.scannedBytes / 1e6).toFixed(1)} MB | $${cost.usd.toFixed(5)} |`,
    );
    if (cost.built) builtUsd = cost.usd;
  }
  if (builtUsd > VIEW_BUDGET_USD)
    failures.push(`90-day view over budget on the built layout: $${builtUsd.toFixed(5)} > $${VIEW_BUDGET_USD}`);
  const built = costs.find((c) => c.built);
  const monthly = costs.at(-1);
  const dayParquet = VIEW_COMPACTED_BYTES_PER_QUERY / 90;
  const mergeAlone = dailyMergeUsd(dayParquet, 1);
  const mergeShared = dailyMergeUsd(dayParquet, 100);
  const monthlyCost = monthlyMergeUsd(dayParquet * 31);
  const monthlySaves = built && monthly ? built.usd - monthly.usd : 0;
  lines.push(
    '',
    `- The view of a workspace with ${VIEW_WORKSPACE_EVENTS.toLocaleString('en-US')} events in 90 days: each query scans ${(VIEW_COMPACTED_BYTES_PER_QUERY / 1e6).toFixed(1)} MB of Parquet plus ${(rawTailBytes / 1e3).toFixed(0)} KB of gzip raw tail (billed 10 MB); the raw tail is ${RAW_TAIL_HOURS} hours of its shard at one Firehose object a minute (${rawPartitionsPerQuery()} raw partitions listed at worst). Budget: **$${VIEW_BUDGET_USD} a view**, checked on the built layout ($${builtUsd.toFixed(5)}). A shard shared with a busy workspace (2,000 clicks/s) adds its raw bytes: ~${((2000 * 3600 * RAW_TAIL_HOURS * compression.jsonBytes) / compression.events / 1e9).toFixed(1)} GB uncompressed, ~${((2000 * 3600 * RAW_TAIL_HOURS * compression.gzipBytes) / compression.events / 1e9).toFixed(1)} GB gzip a query.`,
    `- **Daily merge, per workspace-day**: $${mergeAlone.toFixed(6)} merged alone (10 MB minimum scan), $${mergeShared.toFixed(6)} in a statement of 100 workspaces (24 hourly files read, one daily file written, the hourly listing's share).`,
    `- Monthly files for closed months: they would save $${monthlySaves.toFixed(5)} a 90-day view (about ${(monthly && built ? built.gets - monthly.gets : 0).toString()} fewer GETs: footers of daily files) and cost $${monthlyCost.toFixed(6)} per workspace-month to write, so they pay back for a workspace viewed at least ${Math.ceil(monthlyCost / Math.max(monthlySaves, 1e-12))} time(s) a month over 90 days and cost money for the rest; the built layout is within budget without them and they would add a second switch-over: not built (worth it if 90-day views are frequent).`,
  );
  return {
    markdown: `${lines.join('\n')}\n`,
    failures,
    summary: {
      gzipRatio: compression.ratio,
      sinkRatio: sink.ratio,
      largestUnitScanBytes: gzipBacklog?.largestUnitScanBytes ?? Infinity,
      unitBoundBytes: CUTOFF_BYTES / 2,
      units: gzipBacklog?.units.length ?? 0,
      runsToClear: gzipBacklog?.runsToClear ?? Infinity,
      viewUsd: builtUsd,
      viewBudgetUsd: VIEW_BUDGET_USD,
      dailyMergeUsdPerWorkspaceDay: mergeAlone,
    },
  };
};
