import { createContext, Script } from 'node:vm';
import { KVS_KEY_MAX_BYTES, KVS_STORE_MAX_BYTES, KVS_VALUE_MAX_BYTES } from './edge-answer';

/** CloudFront Functions: the function code may be at most 10 KB. */
export const SANDBOX_CODE_MAX_BYTES = 10 * 1024;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A local CloudFront KeyValueStore: a key up to 512 bytes, a value up to 1 KB, the store up to
 * 5 MB (keys and values together), as CloudFront enforces them; a write past a limit throws and
 * leaves the store as it was.
 */
export class LocalKeyValueStore {
  private readonly entries = new Map<string, string>();
  private used = 0;

  get sizeBytes(): number {
    return this.used;
  }

  get keyCount(): number {
    return this.entries.size;
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  put(key: string, value: string): void {
    if (key === '' || bytes(key) > KVS_KEY_MAX_BYTES)
      throw new Error(`KeyValueStore key over ${KVS_KEY_MAX_BYTES} bytes`);
    if (bytes(value) > KVS_VALUE_MAX_BYTES) throw new Error(`KeyValueStore value over ${KVS_VALUE_MAX_BYTES} bytes`);
    const before = this.entries.get(key);
    const next = this.used - (before === undefined ? 0 : bytes(key) + bytes(before)) + bytes(key) + bytes(value);
    if (next > KVS_STORE_MAX_BYTES) throw new Error(`KeyValueStore over ${KVS_STORE_MAX_BYTES} bytes`);
    this.entries.set(key, value);
    this.used = next;
  }

  delete(key: string): void {
    const before = this.entries.get(key);
    if (before === undefined) return;
    this.entries.delete(key);
    this.used -= bytes(key) + bytes(before);
  }
}

/** A CloudFront Functions viewer-request event (the part the sandbox fills in). */
export interface SandboxRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string }>;
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
}

export interface SandboxResponse {
  statusCode: number;
  statusDescription?: string;
  headers: Record<string, { value: string }>;
}

/** The runtime's only module statement: `import cf from 'cloudfront'` (the KeyValueStore helpers). */
const CLOUDFRONT_IMPORT = /^import\s+cf\s+from\s*["']cloudfront["'];?/;

/** Globals a Node script has and the CloudFront Functions runtime does not. */
const ABSENT = [
  'require',
  'process',
  'Buffer',
  'fetch',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'module',
  'exports',
  'globalThis',
  'WebAssembly',
];

const compiled = new Map<string, Script>();

const scriptOf = (code: string): Script => {
  let script = compiled.get(code);
  if (script) return script;
  if (bytes(code) > SANDBOX_CODE_MAX_BYTES) {
    throw new Error(
      `function code is ${bytes(code)} bytes; CloudFront Functions take at most ${SANDBOX_CODE_MAX_BYTES}`,
    );
  }
  // A Script has no module statements: the one module the runtime offers becomes the `cf` the
  // sandbox provides; any other import (or a require) fails here as it fails in CloudFront.
  const body = code.replace(CLOUDFRONT_IMPORT, '');
  script = new Script(`${body}\n;handler(event);`);
  compiled.set(code, script);
  return script;
};

/**
 * Runs a viewer-request function's code (cloudfront-js-2.0, async handler) in a fresh V8 context
 * holding only what that runtime offers: no require, process, Buffer, fetch or timers, the
 * `cloudfront` module's `cf.kvs()` over `store` (`get` rejects a missing key, as CloudFront's
 * does), code up to 10 KB. `nowMs` fixes the context's clock. Returns the request (fall through
 * to the origin) or the response the function generated, as plain data.
 */
export const runHotLinkFunction = async (
  code: string,
  request: SandboxRequest,
  store: LocalKeyValueStore,
  nowMs?: number,
): Promise<SandboxRequest | SandboxResponse> => {
  const script = scriptOf(code);
  const kvs = {
    get: (key: string): Promise<string> => {
      const value = store.get(key);
      return value === undefined ? Promise.reject(new Error(`key not found: ${key}`)) : Promise.resolve(value);
    },
    exists: (key: string): Promise<boolean> => Promise.resolve(store.get(key) !== undefined),
    meta: () => Promise.resolve({ keyCount: store.keyCount, sizeBytes: store.sizeBytes }),
  };
  const sandbox: Record<string, unknown> = {
    event: {
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: '127.0.0.1' },
      request: structuredClone(request),
    },
    cf: { kvs: () => kvs },
  };
  for (const name of ABSENT) Object.defineProperty(sandbox, name, { value: undefined });
  const context = createContext(sandbox);
  if (nowMs !== undefined) new Script(`Date.now = function () { return ${String(nowMs)}; };`).runInContext(context);
  // CloudFront stops a function at about 1 ms of compute; the bound here only catches a runaway loop.
  const result: unknown = await (script.runInContext(context, { timeout: 1000 }) as Promise<unknown>);
  return JSON.parse(JSON.stringify(result)) as SandboxRequest | SandboxResponse;
};

/** The function generated a response (it did not send the request on to the origin). */
export const isFunctionResponse = (result: SandboxRequest | SandboxResponse): result is SandboxResponse =>
  'statusCode' in result;
