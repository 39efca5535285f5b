/**
 * Lambda's synchronous invocation limit: the function's whole result (API Gateway payload 2.0:
 * statusCode, headers, and the body as one JSON string inside it) may be at most 6 MB
 * (6,291,556 bytes); a larger one is a failed invocation, which API Gateway answers with 500.
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;

/**
 * What a page's items may add up to (measured with `escapedJsonBytes`): 4 MiB, leaving more than
 * 2 MB of the limit to the envelope, cursor and headers.
 */
export const PAGE_BUDGET_BYTES = 4 * 1024 * 1024;

/**
 * An upper bound of the bytes `value` adds to a Lambda result: serialized as JSON into the
 * body, then escaped again as a string inside the result, every non-ASCII UTF-16 unit counted
 * as a six-byte `\uXXXX` escape (whatever the runtime's serializer does with it).
 */
export const escapedJsonBytes = (value: unknown): number => {
  // undefined for a value JSON cannot hold (undefined, a function), though typed string.
  const once = JSON.stringify(value) as string | undefined;
  const twice = JSON.stringify(once ?? 'null');
  let bytes = 0;
  for (let i = 0; i < twice.length; i++) bytes += twice.charCodeAt(i) < 0x80 ? 1 : 6;
  return bytes;
};

/**
 * How many of `items` (in order) fit in `budget` bytes: at least one when there is one (a single
 * item always fits: items are bounded far below the limit), then as many as fit.
 */
export const countWithinBudget = <T>(
  items: readonly T[],
  sizeOf: (item: T) => number = escapedJsonBytes,
  budget = PAGE_BUDGET_BYTES,
): number => {
  let used = 0;
  for (const [i, item] of items.entries()) {
    used += sizeOf(item);
    if (used > budget && i > 0) return i;
  }
  return items.length;
};
