/**
 * `npm run test:report`: the figures the reliability tests wrote under test/artifacts/ during
 * the last `npm test` (cases tried per route, race outcomes, soak memory), as Markdown.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@shared/local/paths';

const dir = path.join(projectRoot, 'test', 'artifacts');
const reports = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('-report.json'))
      .sort()
  : [];
if (reports.length === 0) {
  console.log('No reports yet: run `npm test` first.');
  process.exit(0);
}
for (const file of reports) {
  const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
  console.log(`## ${file.replace('-report.json', '')}\n`);
  if (file.startsWith('hostile-input')) {
    console.log('| route | cases | statuses |\n|---|---|---|');
    let total = 0;
    for (const [route, stats] of Object.entries(
      data as Record<string, { cases: number; statuses: Record<string, number> }>,
    )) {
      total += stats.cases;
      console.log(
        `| ${route} | ${stats.cases} | ${Object.entries(stats.statuses)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')} |`,
      );
    }
    console.log(`\n${total} cases in all.\n`);
  } else {
    console.log('```json\n' + JSON.stringify(data, null, 2) + '\n```\n');
  }
}
