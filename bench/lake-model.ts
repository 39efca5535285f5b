/**
 * `npx tsx bench/lake-model.ts [--check]`: the event lake at production volume, modelled (AWS is
 * unreachable from here): gzip ratio of our event lines (measured), the compaction plan of a
 * week of missed runs at the viral plan, and a 90-day link view priced with S3 LIST and GET
 * requests and Athena's scanned bytes, per layout. Markdown on stdout; `--check` exits 1 when
 * a compaction unit exceeds half the cutoff or the backlog never clears with gzip.
 */
import {
  ATHENA_MIN_BYTES,
  CUTOFF_BYTES,
  dailyMergeUsd,
  measureCompression,
  ninetyDayLayouts,
  planViralBacklog,
  UNITS_PER_RUN,
  viewCost,
} from './lake-cost';

const GiB = 1024 ** 3;
const check = process.argv.includes('--check');
const failures: string[] = [];
const lines: string[] = ['## Event lake at production volume (model)', ''];

const compression = measureCompression();
lines.push(
  `- Gzip on our event lines: ${(compression.jsonBytes / compression.events).toFixed(0)} B a line, ratio ${compression.ratio.toFixed(2)} (${compression.events} lines, ${compression.jsonBytes} -> ${compression.gzipBytes} bytes)`,
);
for (const gzip of [false, true]) {
  const backlog = planViralBacklog(compression, { gzip });
  lines.push(
    `- Compaction after a week of missed runs at the viral plan (${gzip ? 'gzip' : 'uncompressed'} raw objects): ${backlog.objects.toLocaleString('en-US')} objects, ${(backlog.bytes / 1e9).toFixed(0)} GB, ${backlog.units.length} units (${backlog.unitsPerHour} an hour), largest unit ${(backlog.largestUnitScanBytes / GiB).toFixed(2)} GiB estimated scan (bound ${(CUTOFF_BYTES / 2 / GiB).toFixed(0)} GiB), runs to clear at ${UNITS_PER_RUN} units a run: ${Number.isFinite(backlog.runsToClear) ? backlog.runsToClear : 'never (more units an hour than a run does)'}`,
  );
  if (backlog.largestUnitScanBytes > CUTOFF_BYTES / 2)
    failures.push(`compaction unit over half the cutoff (${gzip ? 'gzip' : 'uncompressed'})`);
  if (gzip && !Number.isFinite(backlog.runsToClear)) failures.push('gzip backlog never clears');
}
lines.push('', '| 90-day link view layout | LIST | GET | scanned | USD per view |', '|---|---|---|---|---|');
for (const layout of ninetyDayLayouts()) {
  const cost = viewCost(layout, ATHENA_MIN_BYTES / 2);
  lines.push(
    `| ${layout.name} | ${cost.lists} | ${cost.gets} | ${(cost.scannedBytes / 1e6).toFixed(0)} MB | $${cost.usd.toFixed(5)} |`,
  );
}
lines.push(
  '',
  `- The view of a workspace with 1M events in 90 days scans under 10 MB a query (billed 10 MB); the raw tail is 2 hours of its shard at one Firehose object a minute. A shard shared with a busy workspace (2,000 clicks/s) adds its raw bytes: ~${((2000 * 7200 * compression.jsonBytes) / compression.events / 1e9).toFixed(1)} GB uncompressed, ~${((2000 * 7200 * compression.gzipBytes) / compression.events / 1e9).toFixed(1)} GB gzip a query.`,
  `- Daily merge of one workspace-day (24 hourly files into one): $${dailyMergeUsd(ATHENA_MIN_BYTES).toFixed(6)} (10 MB minimum scan).`,
);
process.stdout.write(`${lines.join('\n')}\n`);
if (failures.length > 0) process.stderr.write(`lake model: ${failures.join('; ')}\n`);
if (check && failures.length > 0) process.exit(1);
