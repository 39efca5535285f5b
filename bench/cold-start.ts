import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '@shared/local/paths';
import { runtimeNodeOptions } from '@lib/bundle-settings';
import { buildAll, bundleEntry, distDir } from '../scripts/build';
import { median, round } from './stats';

const run = promisify(execFile);
const node = path.join(projectRoot, 'node_modules', '.bin', 'node');

/**
 * Module initialisation of a bundle in a fresh Node 22 process started with the deployed
 * NODE_OPTIONS (source maps on): time to import it, in ms.
 */
const initTime = async (file: string): Promise<number> => {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(node, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: runtimeNodeOptions, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1' } });
  return Number(stdout);
};

export interface ColdStartRow {
  handler: string;
  bytes: number;
  initMs: number;
  sizeRatio: number;
  initRatio: number;
}

/**
 * Bundle size and module-initialisation time (median of `samples` fresh processes) for every
 * handler and for the floor bundle. Processes alternate between bundles so machine noise is
 * spread evenly.
 */
export const measureColdStart = async (samples: number) => {
  const floor = await bundleEntry(path.join(projectRoot, 'bench', 'floor-handler.ts'), path.join(distDir, '_floor', 'index.mjs'));
  const built = await buildAll();
  const targets = [{ handler: '_floor', outfile: floor.outfile, bytes: floor.bytes }, ...built];
  const times = new Map<string, number[]>(targets.map((t) => [t.handler, []]));
  for (let i = 0; i < samples; i++) {
    for (const target of targets) times.get(target.handler)!.push(await initTime(target.outfile));
  }
  const floorInit = median(times.get('_floor')!);
  const rows: ColdStartRow[] = built.map((b) => {
    const initMs = median(times.get(b.handler)!);
    // Ratios keep 3 decimals and are judged as measured (no rounding up to the limit).
    return { handler: b.handler, bytes: b.bytes, initMs: round(initMs), sizeRatio: round(b.bytes / floor.bytes, 3), initRatio: round(initMs / floorInit, 3) };
  });
  return { floor: { bytes: floor.bytes, initMs: round(floorInit) }, samples, rows: rows.sort((a, b) => a.handler.localeCompare(b.handler)) };
};
