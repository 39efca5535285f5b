/**
 * The size of @linkservice/sdk as an application ships it: sdk/src/index.ts bundled with its
 * dependencies (openapi-fetch, p-retry) by esbuild, minified, ESM for browsers and edge runtimes,
 * then gzipped. Judged in every bench mode and by test/unit/sdk-size.test.ts.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { projectRoot } from '@shared/local/paths';

export interface SdkSize {
  minifiedBytes: number;
  gzipBytes: number;
}

export const sdkSize = async (): Promise<SdkSize> => {
  const result = await build({
    entryPoints: [path.join(projectRoot, 'sdk', 'src', 'index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents;
  if (!code) throw new Error('esbuild wrote no SDK bundle');
  return { minifiedBytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
};
