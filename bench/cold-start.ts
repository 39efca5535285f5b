import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import { runtimeNodeOptions } from '@lib/bundle-settings';
import { buildAll, bundleEntry, distDir } from '../scripts/build';
import { floorDefines, floorEntry, floorFor, type FloorName } from './floors';
import { must } from './must';
import { median, round } from './stats';

const run = promisify(execFile);
const node = path.join(projectRoot, 'node_modules', '.bin', 'node');

/** One fresh process's import of one bundle. */
interface InitSample {
  /** CPU time of the process (user + system, all its threads) from just before the import to just after it. */
  cpuMs: number;
  /** Wall time of the same span (informational: on a shared machine it is mostly the wait for a core). */
  wallMs: number;
}

/**
 * The child's whole program: time the import of the bundle named by BENCH_BUNDLE, from inside
 * the process, so Node's own start-up and exit are left out and both sides pay them alike.
 */
const childScript = [
  'const wall = performance.now();',
  'const cpu = process.cpuUsage();',
  'await import(process.env.BENCH_BUNDLE);',
  'const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall }));',
].join(' ');

/** One handler run and the run of its floor beside it. */
interface PairRun {
  floor: InitSample;
  handler: InitSample;
}

const isInitSample = (value: unknown): value is InitSample =>
  typeof value === 'object' &&
  value !== null &&
  'cpuMs' in value &&
  'wallMs' in value &&
  typeof value.cpuMs === 'number' &&
  typeof value.wallMs === 'number';

/**
 * Module initialisation of a bundle in a fresh Node 22 process started with the deployed
 * NODE_OPTIONS (source maps on).
 */
const initSample = async (file: string): Promise<InitSample> => {
  // A fresh process as Lambda starts one (default, one invocation at a time): without the local
  // server's AWS_LAMBDA_MAX_CONCURRENCY, which asks Powertools for the multi-concurrency runtime's
  // invoke store that a bare process does not have.
  const { AWS_LAMBDA_MAX_CONCURRENCY: _multi, ...env } = process.env;
  const { stdout } = await run(node, ['--input-type=module', '-e', childScript], {
    env: {
      ...env,
      NODE_OPTIONS: runtimeNodeOptions,
      TABLE_NAME: 'bench',
      AWS_REGION: 'us-east-1',
      BENCH_BUNDLE: file,
    },
  });
  const parsed: unknown = JSON.parse(stdout);
  if (!isInitSample(parsed)) throw new Error(`Unexpected cold-start sample from ${file}: ${stdout}`);
  return parsed;
};

export interface ColdStartRow {
  handler: string;
  /** The floor this handler is judged against (bench/floors.ts). */
  floor: FloorName;
  bytes: number;
  /** Informational: the bundle's size over its floor's (no budget). */
  sizeRatio: number;
  /** Median CPU time of the import, ms. */
  initMs: number;
  /** initMs over the floor's initMs: the budgeted figure. */
  initRatio: number;
  /** Median wall time of the import, ms (informational). */
  wallMs: number;
  /** The runs behind the medians, in the order they ran: [floor CPU ms, handler CPU ms] of each pair. */
  pairsCpuMs: ReadonlyArray<readonly [number, number]>;
}

export interface FloorRow {
  floor: FloorName;
  bytes: number;
  /** Median CPU time of the import over every run of this floor (one beside each run of each of its handlers), ms. */
  initMs: number;
  wallMs: number;
  runs: number;
}

export interface ColdStartResults {
  floors: FloorRow[];
  /** Runs of each handler (its floor ran as many times beside them). */
  samples: number;
  /** Processes run at a time. */
  lanes: number;
  rows: ColdStartRow[];
}

export const emptyColdStart: ColdStartResults = { floors: [], samples: 0, lanes: 0, rows: [] };

const medianOf = (samples: InitSample[], metric: keyof InitSample) => median(samples.map((s) => s[metric]));

/** A handler's floor: the bare clients of the union of the services its route rows call. */
const floorOfHandler = (handler: string): FloorName => {
  const rows = routeTable.filter((r) => r.handler === handler);
  return floorFor({
    events: rows.some((r) => r.grants.events),
    analytics: rows.some((r) => r.grants.analytics),
    edge: rows.some((r) => r.api === 'edge'),
  });
};

/** A map's entry that this module put there itself. */
const entry = <K extends string, V>(map: Map<K, V>, key: K): V => must(map.get(key), `entry for ${key}`);

/**
 * Module initialisation (and bundle size, informational) of every handler against its floor
 * bundle. Each handler runs `samples` times, each run paired with a run of its floor, the pair's
 * order alternating from one round to the next (floor first, then handler first), so what the
 * machine does meanwhile falls on both sides alike; rounds go over every handler in turn, so
 * every handler's runs spread over the whole measurement. Init is the CPU time of the import
 * measured inside the child process; a handler's figure is the median of its runs, its floor's
 * the median of all that floor's runs. `lanes` pairs run at a time.
 */
export const measureColdStart = async (
  samples: number,
  only?: (handler: string) => boolean,
  lanes = Math.min(2, os.availableParallelism()),
): Promise<ColdStartResults> => {
  const built = (await buildAll())
    .filter((b) => !only || only(b.handler))
    .sort((a, b) => a.handler.localeCompare(b.handler));
  const floorOf = new Map(built.map((b) => [b.handler, floorOfHandler(b.handler)]));
  const floorNames = [...new Set(floorOf.values())].sort();
  const floors = new Map(
    await Promise.all(
      floorNames.map(
        async (floor) =>
          [
            floor,
            await bundleEntry(
              floorEntry,
              path.join(distDir, `_floor-${floor.replace(/\+/g, '-')}`, 'index.mjs'),
              floorDefines(floor),
            ),
          ] as const,
      ),
    ),
  );

  const pairs = Array.from({ length: samples }, (_, round) =>
    built.map((b) => ({ handler: b, floor: entry(floors, entry(floorOf, b.handler)), floorFirst: round % 2 === 0 })),
  ).flat();
  const pairRuns = new Map<string, PairRun[]>(built.map((b) => [b.handler, []]));
  let next = 0;
  const lane = async () => {
    for (let pair = pairs[next++]; pair; pair = pairs[next++]) {
      let floor: InitSample;
      let handler: InitSample;
      if (pair.floorFirst) {
        floor = await initSample(pair.floor.outfile);
        handler = await initSample(pair.handler.outfile);
      } else {
        handler = await initSample(pair.handler.outfile);
        floor = await initSample(pair.floor.outfile);
      }
      entry(pairRuns, pair.handler.handler).push({ floor, handler });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));

  /** Every run of a floor: the one beside each run of each of its handlers. */
  const floorRuns = (floor: FloorName) =>
    built
      .filter((b) => entry(floorOf, b.handler) === floor)
      .flatMap((b) => entry(pairRuns, b.handler).map((p) => p.floor));
  const floorRows: FloorRow[] = floorNames.map((floor) => {
    const runs = floorRuns(floor);
    return {
      floor,
      bytes: entry(floors, floor).bytes,
      initMs: round(medianOf(runs, 'cpuMs')),
      wallMs: round(medianOf(runs, 'wallMs')),
      runs: runs.length,
    };
  });
  const rows: ColdStartRow[] = built.map((b) => {
    const floor = entry(floorOf, b.handler);
    const floorBytes = entry(floors, floor).bytes;
    const floorInit = medianOf(floorRuns(floor), 'cpuMs');
    const pairsRun = entry(pairRuns, b.handler);
    const runs = pairsRun.map((p) => p.handler);
    const initMs = medianOf(runs, 'cpuMs');
    // Ratios keep 3 decimals; the budgets judge the exact ratio (no rounding up to the limit).
    return {
      handler: b.handler,
      floor,
      bytes: b.bytes,
      sizeRatio: round(b.bytes / floorBytes, 3),
      initMs: round(initMs),
      initRatio: round(initMs / floorInit, 3),
      wallMs: round(medianOf(runs, 'wallMs')),
      pairsCpuMs: pairsRun.map((p) => [round(p.floor.cpuMs), round(p.handler.cpuMs)] as const),
    };
  });
  return { floors: floorRows, samples, lanes: Math.max(1, lanes), rows };
};
