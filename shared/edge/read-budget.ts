import type { ApiResult } from '@shared/http/api-types';
import { redirectTo } from './answer-click';
import type { ResolvedHost } from './host-resolver';
import { statusPage } from './html/status-page';

/**
 * What a visitor waits for the reads before a redirect (host record, unless cached, then the
 * slug item): 1.5 s. A GetItem answers in single-digit milliseconds; past the budget DynamoDB is
 * stalled or unreachable, and the visitor gets the domain's fallback answer instead of waiting
 * for the SDK's timeouts and retries (which outlast the patience of a person clicking a link).
 */
export const EDGE_READ_BUDGET_MS = 1_500;

export class ReadBudgetExceededError extends Error {
  constructor(readonly budgetMs: number) {
    super(`The edge reads did not finish within ${budgetMs} ms`);
    this.name = 'ReadBudgetExceededError';
  }
}

/** Runs `read` with an AbortSignal that fires at the budget; the SDK aborts its call, and this throws ReadBudgetExceededError. */
export const withinReadBudget = async <T>(read: (signal: AbortSignal) => Promise<T>, budgetMs = EDGE_READ_BUDGET_MS): Promise<T> => {
  const signal = AbortSignal.timeout(budgetMs);
  try {
    return await read(signal);
  } catch (error) {
    if (signal.aborted) throw new ReadBudgetExceededError(budgetMs);
    throw error;
  }
};

/**
 * The domain's fallback answer when its reads ran out of budget: its not-found URL when one is
 * set (the domain's own landing place), else a 503 page asking to try again (`Retry-After: 2`).
 * Never cached: the next click tries again.
 */
export const fallbackAnswer = (host: ResolvedHost | null): ApiResult => {
  if (host?.notFoundUrl) return redirectTo(host.notFoundUrl);
  const page = statusPage(503);
  return { ...page, headers: { ...page.headers, 'Retry-After': '2' } };
};
