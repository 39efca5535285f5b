/**
 * `value`, or an Error naming `what` when it is `undefined` or `null`. For a value the code's own
 * invariants guarantee (a regex group that always takes part, a key read from a map just filled,
 * the app id of an app key) but the types cannot prove; the throw turns a broken invariant into a
 * clear error at the place it broke instead of an `undefined` travelling on.
 */
export const required = <T>(value: T | null | undefined, what: string): T => {
  if (value === undefined || value === null) throw new Error(`Internal invariant broken: ${what} is missing`);
  return value;
};
