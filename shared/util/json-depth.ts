/** Nesting depth of a parsed JSON value, computed without recursion (safe on hostile input). */
export const jsonDepthExceeds = (value: unknown, limit: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [current, depth] = entry;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
};

export const MAX_JSON_DEPTH = 32;
