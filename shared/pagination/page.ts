import type { Pagination } from '@shared/http/api-types';
import { decodeCursor, encodeCursor } from './cursor';
import { countWithinBudget, escapedJsonBytes } from './response-budget';

/**
 * A list request's cursor binding: everything that shapes the result (collection, workspace,
 * filters, sort). `limit` is not part of it: the page size may change between pages.
 */
export type CursorQuery = Record<string, unknown>;

/** An absent or empty `cursor` (`?cursor=`, as clients send for a null nextCursor) is the first page. */
export const positionFromCursor = async <P>(cursor: string | undefined, query: CursorQuery): Promise<P | undefined> =>
  cursor === undefined || cursor === '' ? undefined : decodeCursor<P>(cursor, query);

/**
 * Turns up to `limit + 1` matches (in order) into a page: the first `limit`, and a cursor at the
 * last of them when a further match exists (so `nextCursor` is null exactly on the last page).
 *
 * A page also stops filling before its response could pass Lambda's 6 MB limit
 * (response-budget.ts): `sizeOf` measures an item as it will be rendered, and when the next one
 * would not fit, the page ends there with `hasMore` and a cursor, whatever `limit` says.
 */
export const toPage = async <T>(
  matches: readonly T[],
  limit: number,
  positionOf: (item: T) => unknown,
  query: CursorQuery,
  sizeOf: (item: T) => number = escapedJsonBytes,
): Promise<{ items: T[]; pagination: Pagination }> => {
  const wanted = matches.slice(0, limit);
  const items = wanted.slice(0, countWithinBudget(wanted, sizeOf));
  const hasMore = matches.length > items.length;
  const last = items[items.length - 1];
  return {
    items,
    pagination: {
      limit,
      hasMore,
      nextCursor: hasMore && last !== undefined ? await encodeCursor(positionOf(last), query) : null,
    },
  };
};

/** Compares sort keys of the `${time}#${id}` kind: `<0` when `a` comes first in this direction. */
export const compareSortKeys = (a: string, b: string, descending: boolean) =>
  a === b ? 0 : a < b !== descending ? -1 : 1;
