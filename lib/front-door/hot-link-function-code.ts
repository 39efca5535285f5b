import path from 'node:path';
import { buildSync } from 'esbuild';
import { SANDBOX_CODE_MAX_BYTES } from '@shared/edge/hot-links/function-sandbox';
import { projectRoot } from '@shared/local/paths';

/** CloudFront Functions: the function code may be at most 10 KB (the sandbox enforces the same). */
export const FUNCTION_CODE_MAX_BYTES = SANDBOX_CODE_MAX_BYTES;

/** esbuild's ES module footer naming the handler, which CloudFront Functions finds by its name. */
const EXPORT_FOOTER = /export\s*\{\s*handler\s*\};?\s*$/;

let code: string | undefined;

/**
 * The hot-link viewer-request function as deployed (FunctionCode): shared/edge/hot-links/
 * edge-function.ts bundled by esbuild into one ES module (`import cf from 'cloudfront'` kept as
 * the runtime's module), lowered to ES2017 (no optional chaining, nullish coalescing, object
 * spread or optional catch binding; what the runtime lacks beyond that is kept out of the source,
 * and a unit test parses the output for it), whitespace-minified, without the export footer (the
 * runtime calls the top-level function named `handler`). Throws past the 10 KB code limit.
 */
export const hotLinkFunctionCode = (): string => {
  if (code !== undefined) return code;
  const result = buildSync({
    entryPoints: [path.join(projectRoot, 'shared', 'edge', 'hot-links', 'edge-function.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2017',
    external: ['cloudfront'],
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    write: false,
  });
  const text = result.outputFiles[0]?.text ?? '';
  if (!EXPORT_FOOTER.test(text))
    throw new Error('hot-link function: esbuild output has no `export { handler }` footer');
  const built = `${text.replace(EXPORT_FOOTER, '').trimEnd()}\n`;
  const bytes = Buffer.byteLength(built, 'utf8');
  if (bytes > FUNCTION_CODE_MAX_BYTES) {
    throw new Error(
      `hot-link function is ${bytes} bytes; CloudFront Functions take at most ${FUNCTION_CODE_MAX_BYTES}`,
    );
  }
  code = built;
  return built;
};
