import type { ApiResult } from '@shared/http/api-types';
import type { ApiName, RouteDef } from '@shared/routes/route-types';

/*
 * Observers of the local API servers' answers. A module of its own, with no side effect on
 * load: the end-to-end tests' setup imports it in every test process, and the local server
 * (which sets Lambda's environment on load) stays unloaded in the ones that start no stack.
 */

/** One answer of a local API server (a streamed one excepted), as the tests' contract check sees it. */
export interface LocalAnswer {
  api: ApiName;
  method: string;
  /** The request's path as sent (not decoded). */
  path: string;
  /** The route table row that matched (the catch-all included); undefined when none did. */
  route: RouteDef | undefined;
  result: ApiResult;
}

const observers = new Set<(answer: LocalAnswer) => void>();

/**
 * Calls `observer` with every answer the local servers of this process give; returns its
 * removal. The end-to-end tests check each answer against the OpenAPI document with it.
 */
export const observeLocalAnswers = (observer: (answer: LocalAnswer) => void): (() => void) => {
  observers.add(observer);
  return () => {
    observers.delete(observer);
  };
};

/** The observers now (the local server calls each with an answer). */
export const answerObservers = (): readonly ((answer: LocalAnswer) => void)[] => [...observers];
