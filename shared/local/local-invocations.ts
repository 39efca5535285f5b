/**
 * How many local invocations run at once: 8.
 *
 * Deployed, every concurrent request has an execution environment of its own (Lambda scales out
 * to the account's concurrency, 1,000 by default), so one request's wall time does not grow with
 * the others. The local server runs every invocation in one Node process on the machine's few
 * cores: 1,000 interleaved invocations each take ~1,000 times their own time and pass their
 * route's timeout while waiting for the CPU, a failure no deployed function would see. Capping
 * the invocations that run at once keeps each one's wall time near its own work; the rest wait
 * in arrival order, as a request to a function URL or an HTTP API waits while Lambda starts an
 * environment for it, and their timeout (the context's remaining time) starts when they run.
 *
 * Why 8: on the 2-core development machine, shared with other jobs, two copies of the race tests
 * run at once with a cap of 32 still saw invocations pass their 10 s timeout (Middy's early
 * timeout answer) while running; with 8, none did, and the races stay concurrent (8 transactions
 * of one item at once still conflict). Most invocations mostly wait on DynamoDB Local, so 8 at
 * once keeps the machine busy.
 */
export const LOCAL_LAMBDA_CONCURRENCY = 8;

/**
 * How one local invocation ended: what Lambda's platform reports at the end of an invocation (its
 * `platform.runtimeDone` event and REPORT line carry the status; a timeout is also logged as
 * `Task timed out after N seconds`).
 */
export interface InvocationEnd {
  functionName: string;
  awsRequestId: string;
  /** The request's path (on the edge, `/` and the short link's key). */
  rawPath: string;
  status: 'success' | 'error' | 'timeout';
  /**
   * Streamed invocations: whether the end waited for the invocation's event loop to be empty (the
   * runtime's default; the handler can set `context.callbackWaitsForEmptyEventLoop = false`).
   */
  waitedForEmptyEventLoop: boolean;
  /**
   * Streamed invocations: what still held the invocation's event loop when it ended (resource
   * types, e.g. `TCPWRAP` for a socket waiting for an answer, `Timeout` for a pending timer): after
   * a timeout, what kept it running; after an end that did not wait, what a deployed function would
   * leave frozen in its environment, to resume in a later invocation. Undefined for a buffered
   * invocation (the runtime never waits for the loop of an async handler's).
   */
  leftOnEventLoop?: string[];
}

/**
 * The local stand-in for Lambda's concurrency: at most `limit` invocations run at once, the
 * others wait first in, first out. An invocation holds its slot until its work settles, work
 * after its response included (the edge records a click after answering). `idle()` waits for
 * every invocation that has arrived, queued or running, to settle.
 */
export class LocalInvocations {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly endListeners = new Set<(end: InvocationEnd) => void>();
  /** The most invocations that ran at once. */
  peak = 0;

  constructor(readonly limit = LOCAL_LAMBDA_CONCURRENCY) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`local concurrency must be a positive integer, got ${limit}`);
  }

  /** Runs `invoke` once a slot is free; the slot is held until `invoke` settles. */
  run<T>(invoke: () => Promise<T>): Promise<T> {
    const settled = this.acquire().then(async () => {
      try {
        return await invoke();
      } finally {
        this.release();
      }
    });
    const tracked = settled.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(tracked);
    void tracked.then(() => this.pending.delete(tracked));
    return settled;
  }

  /** Calls `listener` with every invocation's end (the local server reports them); returns its removal. */
  onEnd(listener: (end: InvocationEnd) => void): () => void {
    this.endListeners.add(listener);
    return () => {
      this.endListeners.delete(listener);
    };
  }

  /** Reports an invocation's end to the listeners. */
  ended(end: InvocationEnd): void {
    for (const listener of this.endListeners) listener(end);
  }

  /** Resolves once no invocation is queued or running (including ones that arrive meanwhile). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Invocations waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Invocations running now. */
  get inFlight(): number {
    return this.running;
  }

  private acquire(): Promise<void> {
    if (this.running < this.limit) {
      this.take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) =>
      this.waiting.push(() => {
        this.take();
        resolve();
      }),
    );
  }

  private take() {
    this.running += 1;
    this.peak = Math.max(this.peak, this.running);
  }

  private release() {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}
