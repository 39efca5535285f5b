/**
 * The value, or an error naming what was missing: for array slots and map entries the bench's own
 * code filled, where a miss is a bug in the bench rather than a figure to report.
 */
export const must = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`bench: no ${what}`);
  return value;
};
