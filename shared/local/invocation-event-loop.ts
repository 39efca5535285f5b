import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The event loop of one local invocation: what Lambda's Node.js runtime waits for before it ends
 * a streamed invocation, reproduced in the local server's one shared process.
 *
 * Deployed, each execution environment runs one invocation at a time in its own process, and on
 * response streaming the runtime ends the invocation only once the process's event loop is empty
 * (its streaming context defaults `callbackWaitsForEmptyEventLoop` to true): a socket still
 * waiting for an answer, or a timer still pending, keeps the invocation running, and billed, up to
 * its timeout. With `callbackWaitsForEmptyEventLoop = false` it ends when the handler returns, and
 * whatever is left is frozen with the environment and resumes in a later invocation.
 *
 * Locally every invocation shares one process, so "empty" is per invocation: the handles and
 * timers created while the invocation runs (in its async context, whatever awaits or callbacks
 * they were created from) are its own, tracked with an async hook, and they hold its loop while
 * Node would count them as keeping a process alive (`hasRef()`: a ref'd timer or immediate not yet
 * run or cleared, an open socket or server that is not unref'd; an HTTP agent unrefs a keep-alive
 * socket back in its pool). Promises hold nothing by themselves, as in Node. A request without a
 * handle (a file system call, a DNS lookup) is not tracked: it ends on its own. Work a local stand-in
 * of another function does (the local event stream's counter consumer) runs outside any
 * invocation's loop (`outsideInvocations`).
 */
interface Holder {
  type: string;
  /** `_destroyed`: a timer that has run or been cleared (Node keeps its ref flag as it was). */
  resource: { hasRef: () => unknown; _destroyed?: unknown };
}

interface Scope {
  holders: Holder[];
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * The hook is on only while a local invocation is open (it is called for every promise the
 * process creates): work the same process does between invocations (the bench's in-process
 * measurements) pays nothing for it.
 */
const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'PROMISE') return;
    const scope = scopes.getStore();
    if (!scope?.open) return;
    const hasRef = (resource as Partial<Holder['resource']>).hasRef;
    if (typeof hasRef === 'function') scope.holders.push({ type, resource: resource as Holder['resource'] });
  },
});
let openLoops = 0;

const holds = (holder: Holder): boolean => {
  try {
    return holder.resource.hasRef() === true && holder.resource._destroyed !== true;
  } catch {
    // A handle already closed and released.
    return false;
  }
};

/** How often a waiting invocation looks at its loop again. */
const POLL_MS = 10;

export interface InvocationEventLoop {
  /** Runs the invocation: the handles and timers `fn` creates (directly or later, from its callbacks) are its loop's. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** What still holds the loop (resource types, e.g. `TCPWRAP`, `Timeout`); empty when the loop is. */
  holding(): string[];
  /** Resolves once nothing holds the loop, or the loop is closed. */
  emptied(): Promise<void>;
  /** The invocation has ended: stops tracking (a later resource of its async context is nobody's) and says what still held it. */
  close(): string[];
}

export const invocationEventLoop = (): InvocationEventLoop => {
  if (openLoops++ === 0) hook.enable();
  const scope: Scope = { holders: [], open: true };
  const holding = () => {
    scope.holders = scope.holders.filter(holds);
    return scope.holders.map((h) => h.type);
  };
  return {
    run: (fn) => scopes.run(scope, fn),
    holding,
    emptied: async () => {
      // The poll's own timer is unref'd and created outside the invocation's scope.
      while (scope.open && holding().length > 0) await delay(POLL_MS, undefined, { ref: false });
    },
    close: () => {
      if (!scope.open) return [];
      const left = holding();
      scope.open = false;
      scope.holders = [];
      if (--openLoops === 0) hook.disable();
      return left;
    },
  };
};

/**
 * Runs `fn` outside any invocation's loop: what a local stand-in of another service or function
 * starts from inside an invocation (the local event stream's counter consumer, a Lambda of its
 * own when deployed) is not the invocation's work.
 */
export const outsideInvocations = <T>(fn: () => T): T => scopes.exit(fn);
