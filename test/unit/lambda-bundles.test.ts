import { readdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as consumerSpecs from '@shared/routes/consumer-specs';
import type { FunctionSpec } from '@shared/routes/function-spec';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import { required } from '@shared/util/required';
import { bundleOptions } from '../../scripts/build';

/**
 * Production code never carries the local stack: every Lambda entry (lambdas/*.ts), bundled with
 * the CDK stack's settings, has no input under shared/local/, no local stand-in (a file named
 * local-*: the local event stream, the local lake sink) and nothing of DuckDB (the local analytics
 * engine). The local stack provides those itself (shared/local/local-services.ts).
 */
const lambdaDir = path.join(projectRoot, 'lambdas');
const entries = readdirSync(lambdaDir)
  .filter((file) => file.endsWith('.ts'))
  .sort();
const rows: FunctionSpec[] = [...routeTable, ...Object.values(consumerSpecs)];

/** An input that belongs to the local stack, by its path in esbuild's metafile. */
const isLocalOnly = (input: string): boolean =>
  input.startsWith('shared/local/') || /(^|\/)local-[^/]*$/.test(input) || /duckdb/i.test(input);

/** The local-only inputs of one entry's bundle (esbuild's metafile; nothing is written). */
const localInputs = async (entry: string): Promise<string[]> => {
  const result = await build({ ...bundleOptions(entry), write: false, outdir: path.join(projectRoot, 'dist') });
  return Object.keys(result.metafile.inputs).filter(isLocalOnly).sort();
};

describe('Lambda bundles', () => {
  it('bundles every function: each entry is the handler of a route or a consumer', () => {
    expect(entries.length).toBeGreaterThan(30);
    expect(entries.filter((file) => !rows.some((row) => `${row.handler}.ts` === file))).toEqual([]);
  });

  it('sees a local input when one is bundled', async () => {
    expect(isLocalOnly('shared/events/local-lake-sink.ts')).toBe(true);
    expect(isLocalOnly('node_modules/@duckdb/node-api/lib/index.js')).toBe(true);
    expect(isLocalOnly('shared/events/stream-sink.ts')).toBe(false);
    const local = await localInputs(path.join(projectRoot, 'shared/local/local-services.ts'));
    expect(local).toEqual(
      expect.arrayContaining([
        'shared/local/local-services.ts',
        'shared/events/local-event-stream.ts',
        'shared/analytics/query/duckdb-engine.ts',
      ]),
    );
  });

  it('carries nothing of the local stack in any Lambda', { timeout: 300_000 }, async () => {
    // One esbuild run over every entry with the stack's settings (the modules they share are
    // parsed once); without splitting, each output's metafile entry lists its own bundle's inputs.
    const result = await build({
      ...bundleOptions(path.join(lambdaDir, required(entries[0], 'a Lambda entry'))),
      entryPoints: entries.map((file) => path.join(lambdaDir, file)),
      write: false,
      outdir: path.join(projectRoot, 'dist'),
    });
    const bundles = Object.values(result.metafile.outputs).filter((output) => output.entryPoint !== undefined);
    expect(bundles.map((output) => path.basename(required(output.entryPoint, 'an entry point'))).sort()).toEqual(
      entries,
    );
    const found: Record<string, string[]> = {};
    for (const output of bundles) {
      const local = Object.keys(output.inputs).filter(isLocalOnly).sort();
      if (local.length > 0) found[path.basename(required(output.entryPoint, 'an entry point'))] = local;
    }
    expect(found).toEqual({});
  });
});
