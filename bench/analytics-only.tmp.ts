import { startWorld } from './world';
import { measureAnalyticsScale, dashboardViewUsdFor } from './analytics-scale';
import { judgeBudgets } from './report';
const levels = process.argv.slice(2).map(Number);
const world = await startWorld();
try {
  const analytics = await measureAnalyticsScale(world, levels, 3);
  for (const level of analytics) {
    console.log(JSON.stringify({ events: level.events, gen: level.generateSeconds, ws: level.workspaceEvents, lakeFiles: level.lakeFiles, lakeMiB: (level.lakeBytes / 2 ** 20).toFixed(1), compactS: level.compacted.compactSeconds, cFiles: level.compacted.lakeFiles, cMiB: (level.compacted.lakeBytes / 2 ** 20).toFixed(1) }));
    for (const [name, q] of [...level.queries.map((q) => ['json', q] as const), ...level.compacted.queries.map((q) => ['parquet', q] as const)]) console.log(name, q.route, q.ms, 'ms', q.filesRead, 'files', (q.bytesRead / 2 ** 20).toFixed(2), 'MiB', q.prunedToScope, q.queryBytes.map((b) => (b / 2 ** 20).toFixed(2)).join('/'));
    const p = level.compacted.queries[0]!;
    console.log('usd 1M', dashboardViewUsdFor(p.queryBytes, level.workspaceEvents));
  }


} finally {
  await world.stack.stop();
}
