import { getConfig } from '@shared/config/config';
import type { ApiResult } from '@shared/http/api-types';
import { redirectTo } from './click-response';
import type { ResolvedHost } from './host-resolver';
import { statusPage } from './html/status-page';

/**
 * What a visitor waits for the reads before a redirect (host record, unless cached, then the
 * slug item): 1.5 s. A GetItem answers in single-digit milliseconds; past the budget DynamoDB is
 * stalled or unreachable, and the visitor gets the domain's fallback answer instead of waiting
 * for the SDK's timeouts and retries (which outlast the patience of a person clicking a link).
 */
export const EDGE_READ_BUDGET_MS = 1_500;

/**
 * Locally every handler shares one process and DynamoDB Local shares the machine's cores: under
 * a test's load a read can wait seconds for CPU where a Lambda never would, so the local stack
 * allows 4 s (tests that need the budget to fire stall DynamoDB for longer than that).
 */
export const LOCAL_EDGE_READ_BUDGET_MS = 4_000;

export const edgeReadBudgetMs = (): number =>
  getConfig().DYNAMODB_ENDPOINT ? LOCAL_EDGE_READ_BUDGET_MS : EDGE_READ_BUDGET_MS;

export class ReadBudgetExceededError extends Error {
  constructor(readonly budgetMs: number) {
    super(`The edge reads did not finish within ${budgetMs} ms`);
    this.name = 'ReadBudgetExceededError';
  }
}

/** Runs `read` with an AbortSignal that fires at the budget; the SDK aborts its call, and this throws ReadBudgetExceededError. */
export const withinReadBudget = async <T>(
  read: (signal: AbortSignal) => Promise<T>,
  budgetMs = edgeReadBudgetMs(),
): Promise<T> => {
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
