import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import { runtimeNodeOptions } from '@lib/bundle-settings';
import { buildAll, bundleEntry, distDir } from '../scripts/build';
import { floorDefines, floorEntry, floorFor, type FloorName } from './floors';
import { median, round } from './stats';

const run = promisify(execFile);
const node = path.join(projectRoot, 'node_modules', '.bin', 'node');

/**
 * Module initialisation of a bundle in a fresh Node 22 process started with the deployed
 * NODE_OPTIONS (source maps on): time to import it, in ms.
 */
const initTime = async (file: string): Promise<number> => {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  // A fresh process as Lambda starts one (default, one invocation at a time): without the local
  // server's AWS_LAMBDA_MAX_CONCURRENCY, which asks Powertools for the multi-concurrency runtime's
  // invoke store that a bare process does not have.
  const { AWS_LAMBDA_MAX_CONCURRENCY: _multi, ...env } = process.env;
  const { stdout } = await run(node, ['--input-type=module', '-e', script], {
    env: { ...env, NODE_OPTIONS: runtimeNodeOptions, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1' },
  });
  return Number(stdout);
};

export interface ColdStartRow {
  handler: string;
  /** The floor this handler is judged against (bench/floors.ts). */
  floor: FloorName;
  bytes: number;
  initMs: number;
  sizeRatio: number;
  initRatio: number;
}

export interface FloorRow {
  floor: FloorName;
  bytes: number;
  initMs: number;
}

/**
 * Bundle size and module-initialisation time (median of `samples` fresh processes) for every
 * handler and for each floor bundle its handlers need. Processes alternate between bundles so
 * machine noise is spread evenly.
 */
export const measureColdStart = async (samples: number, only?: (handler: string) => boolean) => {
  const built = (await buildAll()).filter((b) => !only || only(b.handler));
  // A handler serving several rows calls the union of their services.
  const grantsOf = (handler: string) => {
    const rows = routeTable.filter((r) => r.handler === handler);
    return {
      events: rows.some((r) => r.grants.events),
      analytics: rows.some((r) => r.grants.analytics),
      edge: rows.some((r) => r.api === 'edge'),
    };
  };
  const floorOf = new Map(built.map((b) => [b.handler, floorFor(grantsOf(b.handler))]));
  const floorNames = [...new Set(floorOf.values())].sort();
  const floors = await Promise.all(
    floorNames.map(async (floor) => ({
      floor,
      ...(await bundleEntry(
        floorEntry,
        path.join(distDir, `_floor-${floor.replace(/\+/g, '-')}`, 'index.mjs'),
        floorDefines(floor),
      )),
    })),
  );
  const targets = [
    ...floors.map((f) => ({ key: `_floor:${f.floor}`, outfile: f.outfile })),
    ...built.map((b) => ({ key: b.handler, outfile: b.outfile })),
  ];
  const times = new Map<string, number[]>(targets.map((t) => [t.key, []]));
  for (let i = 0; i < samples; i++) {
    for (const target of targets) times.get(target.key)!.push(await initTime(target.outfile));
  }
  const floorRows: FloorRow[] = floors.map((f) => ({
    floor: f.floor,
    bytes: f.bytes,
    initMs: round(median(times.get(`_floor:${f.floor}`)!)),
  }));
  const rows: ColdStartRow[] = built.map((b) => {
    const floor = floors.find((f) => f.floor === floorOf.get(b.handler))!;
    const floorInit = median(times.get(`_floor:${floor.floor}`)!);
    const initMs = median(times.get(b.handler)!);
    // Ratios keep 3 decimals and are judged as measured (no rounding up to the limit).
    return {
      handler: b.handler,
      floor: floor.floor,
      bytes: b.bytes,
      initMs: round(initMs),
      sizeRatio: round(b.bytes / floor.bytes, 3),
      initRatio: round(initMs / floorInit, 3),
    };
  });
  return { floors: floorRows, samples, rows: rows.sort((a, b) => a.handler.localeCompare(b.handler)) };
};
