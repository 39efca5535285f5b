import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import { runtimeNodeOptions } from '@lib/bundle-settings';
import { buildAll, bundleEntry, distDir } from '../scripts/build';
import { initLimitOf } from './budgets';
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
  /** Median CPU time of the import over `runs` runs, ms. */
  initMs: number;
  /** initMs over the floor's initMs: the budgeted figure. */
  initRatio: number;
  /** Median wall time of the import, ms (informational). */
  wallMs: number;
  /** Runs of this handler: the base runs, doubled when its ratio came near its budget. */
  runs: number;
  /** The CPU ms of every run, in the order they ran. */
  cpuMsRuns: number[];
}

export interface FloorRow {
  floor: FloorName;
  bytes: number;
  /** Median CPU time of the import over every run of this floor, ms. */
  initMs: number;
  wallMs: number;
  runs: number;
  cpuMsRuns: number[];
}

export interface ColdStartResults {
  floors: FloorRow[];
  /** Base runs of each handler. */
  samples: number;
  /** Processes run at a time. */
  lanes: number;
  /** Handlers that ran a second set of `samples` runs, their ratio having come within CONFIRM_MARGIN of their budget. */
  confirmed: string[];
  rows: ColdStartRow[];
}

export const emptyColdStart: ColdStartResults = { floors: [], samples: 0, lanes: 0, confirmed: [], rows: [] };

/** A floor runs once per this many handler runs of its handlers (beside the first of them). */
export const HANDLER_RUNS_PER_FLOOR_RUN = 2;

/**
 * A handler whose ratio after the base runs lies within this of its budget runs as many times
 * again, so that the pass or fail of a budget rests on more runs where it is close.
 */
export const CONFIRM_MARGIN = 0.06;

const medianOf = (samples: InitSample[], metric: keyof InitSample) => median(samples.map((s) => s[metric]));

/** A handler's floor: the bare clients of the union of the services its route rows call. */
const floorOfHandler = (handler: string): FloorName => {
  const rows = routeTable.filter((r) => r.handler === handler);
  return floorFor({
    events: rows.some((r) => r.grants.events),
    analytics: rows.some((r) => r.grants.analytics),
    // The edge's front-door check, and v1Handler's console-origin check (a V1Route has `request`).
    originSecret: rows.some((r) => r.api === 'edge' || 'request' in r),
  });
};

/** A map's entry that this module put there itself. */
const entry = <K extends string, V>(map: Map<K, V>, key: K): V => must(map.get(key), `entry for ${key}`);

interface Bundle {
  outfile: string;
  bytes: number;
}

/** One floor run and the handler runs beside it: the floor first in even rounds, last in odd ones. */
interface Block {
  floor: FloorName;
  handlers: string[];
  floorFirst: boolean;
}

/**
 * Module initialisation (and bundle size, informational) of every handler against its floor
 * bundle. Init is the CPU time of the import, measured inside a fresh child process. Each round
 * goes over every handler, its floor's runs interleaved with its runs (one floor run beside every
 * HANDLER_RUNS_PER_FLOOR_RUN handler runs of that floor, before them in one round and after them
 * in the next: ABBA...), so what the machine does meanwhile falls on both sides alike, and each
 * handler's runs spread over the whole measurement. After `samples` rounds, the handlers within
 * CONFIRM_MARGIN of their budget run `samples` rounds more. A handler's figure is the median of
 * its runs, a floor's the median of all its runs. `lanes` blocks run at a time.
 */
export const measureColdStart = async (
  samples: number,
  { lanes = Math.min(2, os.availableParallelism()) }: { lanes?: number } = {},
): Promise<ColdStartResults> => {
  const built = (await buildAll()).sort((a, b) => a.handler.localeCompare(b.handler));
  const handlers = new Map<string, Bundle>(built.map((b) => [b.handler, b]));
  const floorOf = new Map(built.map((b) => [b.handler, floorOfHandler(b.handler)]));
  const floorNames = [...new Set(floorOf.values())].sort();
  const floors = new Map<FloorName, Bundle>(
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
  const handlerRuns = new Map<string, InitSample[]>(built.map((b) => [b.handler, []]));
  const floorRuns = new Map<FloorName, InitSample[]>(floorNames.map((f) => [f, []]));
  const lanesUsed = Math.max(1, lanes);

  /** `rounds` rounds over `names`, `lanesUsed` blocks at a time. */
  const runRounds = async (names: string[], rounds: number) => {
    const blocks: Block[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const floor of floorNames) {
        const group = names.filter((h) => entry(floorOf, h) === floor);
        for (let i = 0; i < group.length; i += HANDLER_RUNS_PER_FLOOR_RUN) {
          blocks.push({ floor, handlers: group.slice(i, i + HANDLER_RUNS_PER_FLOOR_RUN), floorFirst: round % 2 === 0 });
        }
      }
    }
    let next = 0;
    const lane = async () => {
      for (let block = blocks[next++]; block; block = blocks[next++]) {
        const runFloor = async (floor: FloorName) => {
          entry(floorRuns, floor).push(await initSample(entry(floors, floor).outfile));
        };
        if (block.floorFirst) await runFloor(block.floor);
        for (const handler of block.handlers) {
          entry(handlerRuns, handler).push(await initSample(entry(handlers, handler).outfile));
        }
        if (!block.floorFirst) await runFloor(block.floor);
      }
    };
    await Promise.all(Array.from({ length: lanesUsed }, lane));
  };

  const ratioOf = (handler: string) =>
    medianOf(entry(handlerRuns, handler), 'cpuMs') / medianOf(entry(floorRuns, entry(floorOf, handler)), 'cpuMs');
  await runRounds([...handlers.keys()], samples);
  const confirmed = [...handlers.keys()].filter((h) => ratioOf(h) > initLimitOf(h) - CONFIRM_MARGIN);
  if (confirmed.length > 0) await runRounds(confirmed, samples);

  const floorRows: FloorRow[] = floorNames.map((floor) => {
    const runs = entry(floorRuns, floor);
    return {
      floor,
      bytes: entry(floors, floor).bytes,
      initMs: round(medianOf(runs, 'cpuMs')),
      wallMs: round(medianOf(runs, 'wallMs')),
      runs: runs.length,
      cpuMsRuns: runs.map((r) => round(r.cpuMs)),
    };
  });
  const rows: ColdStartRow[] = built.map((b) => {
    const floor = entry(floorOf, b.handler);
    const runs = entry(handlerRuns, b.handler);
    // Ratios keep 3 decimals; the budgets judge the exact ratio (no rounding up to the limit).
    return {
      handler: b.handler,
      floor,
      bytes: b.bytes,
      sizeRatio: round(b.bytes / entry(floors, floor).bytes, 3),
      initMs: round(medianOf(runs, 'cpuMs')),
      initRatio: round(ratioOf(b.handler), 3),
      wallMs: round(medianOf(runs, 'wallMs')),
      runs: runs.length,
      cpuMsRuns: runs.map((r) => round(r.cpuMs)),
    };
  });
  return { floors: floorRows, samples, lanes: lanesUsed, confirmed, rows };
};
