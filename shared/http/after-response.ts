import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Work an invocation finishes after its response: the edge records a click once the visitor has
 * the redirect (docs/edge.md, "After the response"). The edge handler (shared/http/edge-handler.ts)
 * opens one list per invocation; domain code hands it work with `afterResponse`, and the handler
 * ends the response stream first, then awaits the list before the invocation returns. The work
 * must bound itself (the click's recording is bounded by its record budget, which aborts what it
 * started, and hands what it could not finish to the replay log): the invocation, and its billed
 * duration, last until it settles.
 */
const invocationWork = new AsyncLocalStorage<(() => Promise<unknown>)[]>();

/**
 * Hands `work` to the current invocation, to start once its response is sent (so not even its
 * first synchronous steps, building requests and signing them, delay the response). Returns false
 * when no edge invocation is there to take it (a domain function called directly, as in unit
 * tests): the caller then runs and awaits the work itself before answering.
 */
export const afterResponse = (work: () => Promise<unknown>): boolean => {
  const list = invocationWork.getStore();
  if (!list) return false;
  list.push(work);
  return true;
};

/**
 * Runs one invocation with its own after-response list. `settle()` starts the work handed to it
 * and awaits all of it, failures included (each piece handles its own; a failure here is only
 * logged by the caller's own error handling, never thrown).
 */
export const withAfterResponse = <T>(run: () => Promise<T>): { result: Promise<T>; settle: () => Promise<void> } => {
  const list: (() => Promise<unknown>)[] = [];
  const result = invocationWork.run(list, run);
  const settle = async () => {
    // Work may hand on more work while it runs: settle until the list stops growing.
    for (let done = 0; done < list.length;) {
      const batch = list.slice(done);
      done = list.length;
      await Promise.allSettled(batch.map((work) => invocationWork.run(list, work)));
    }
  };
  return { result, settle };
};
