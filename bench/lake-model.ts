/**
 * `npm run -s bench:lake [-- --check]`: the event lake at production volume, modelled
 * (lakeModelReport in bench/lake-cost.ts). Markdown on stdout; `--check` exits 1 when a
 * compaction unit exceeds half the cutoff, the backlog never clears with gzip, or the 90-day
 * view on the built layout is over its budget. `npm run bench -- --check` judges the same lines.
 */
import { lakeModelReport } from './lake-cost';

const { markdown, failures } = await lakeModelReport();
process.stdout.write(markdown);
if (failures.length > 0) process.stderr.write(`lake model: ${failures.join('; ')}\n`);
if (process.argv.includes('--check') && failures.length > 0) process.exit(1);
