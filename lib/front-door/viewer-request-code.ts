import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Script } from 'node:vm';
import { projectRoot } from '@shared/local/paths';

/** The viewer-request CloudFront Function's source, as deployed (FunctionCode). */
let source: string | undefined;
export const viewerRequestCode = (): string =>
  (source ??= readFileSync(path.join(projectRoot, 'lib', 'front-door', 'viewer-request.js'), 'utf8'));

export interface CloudFrontFunctionRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string }>;
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
}

/**
 * Runs the function's code in a fresh V8 context holding only what the cloudfront-js-2.0
 * runtime offers a viewer-request function (no require, process, Buffer, fetch or timers), so
 * code that leans on Node fails here as it would in CloudFront. The local front door and the
 * unit tests run the deployed text through this.
 */
const compiled = new Map<string, Script>();

export const runViewerRequest = (
  request: CloudFrontFunctionRequest,
  code = viewerRequestCode(),
): CloudFrontFunctionRequest => {
  let script = compiled.get(code);
  if (!script) {
    script = new Script(`${code}\nhandler(event);`);
    compiled.set(code, script);
  }
  const sandbox: Record<string, unknown> = {
    event: { version: '1.0', context: { eventType: 'viewer-request' }, viewer: { ip: '127.0.0.1' }, request },
  };
  for (const name of ['require', 'process', 'Buffer', 'fetch', 'setTimeout', 'setInterval', 'module', 'exports']) {
    Object.defineProperty(sandbox, name, { value: undefined });
  }
  // CloudFront stops a function at about 1 ms of compute; the bound here only catches a runaway loop.
  return script.runInNewContext(sandbox, { timeout: 1000 }) as CloudFrontFunctionRequest;
};
