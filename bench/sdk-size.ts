/**
 * The size of @linkservice/sdk as an application ships it: sdk/src/index.ts bundled with its
 * dependencies (openapi-fetch, p-retry) by esbuild, minified, ESM for browsers and edge runtimes,
 * then gzipped; and of @linkservice/web's script tag build (web/src/script.ts, minified, IIFE, as
 * its package builds it), gzipped. Judged in every bench mode and by test/unit/sdk-size.test.ts
 * and test/unit/web-script.test.ts.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { projectRoot } from '@shared/local/paths';

export interface BundleSize {
  minifiedBytes: number;
  gzipBytes: number;
}

export interface SdkSize extends BundleSize {
  /** @linkservice/web's script. Absent in older results. */
  web?: BundleSize;
}

const sizeOf = (code: Uint8Array): BundleSize => ({
  minifiedBytes: code.byteLength,
  gzipBytes: gzipSync(code, { level: 9 }).byteLength,
});

/** @linkservice/web's script tag build, as `npm run build --workspace @linkservice/web` makes it. */
export const webScript = async (): Promise<string> => {
  const result = await build({
    entryPoints: [path.join(projectRoot, 'web', 'src', 'script.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text;
  if (!code) throw new Error('esbuild wrote no web script');
  return code;
};

export const webScriptSize = async (): Promise<BundleSize> => sizeOf(Buffer.from(await webScript()));

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
  return { ...sizeOf(code), web: await webScriptSize() };
};
