/**
 * What a parsed JSON body may hold so that it is stored exactly as sent (the body rules,
 * "hostile input"):
 * - no object key named like a property of `Object.prototype` (`constructor`, `__proto__`,
 *   `toString`, ...): the DynamoDB marshaller takes an object with an own `constructor` for a
 *   class instance, `__proto__` is dropped by any object copy, the others shadow methods;
 * - no empty object key (DynamoDB refuses an empty attribute name at any depth of a map);
 * - every string (keys and values) well-formed Unicode: a lone surrogate cannot be encoded as
 *   UTF-8, and DynamoDB would store U+FFFD in its place;
 * - every number finite, within +-(2^53-1) (the marshaller's safe range) and, unless zero, at
 *   least 1e-130 in magnitude (DynamoDB's smallest number).
 */
export interface JsonSafetyProblem {
  path: string;
  message: string;
}

export const RESERVED_OBJECT_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

const SMALLEST_DYNAMO_NUMBER = 1e-130;

/** In `u` mode a surrogate pair is one code point, so this matches lone surrogates only. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** False when the string holds a lone surrogate (String.prototype.isWellFormed, pre-ES2024 lib). */
export const isWellFormedUnicode = (s: string): boolean => !LONE_SURROGATE.test(s);

const joinPath = (parent: string, segment: string | number) =>
  typeof segment === 'number' ? `${parent}[${segment}]` : parent ? `${parent}.${segment}` : segment;

/** Printable form of a key in a message: lone surrogates shown as \uXXXX escapes. */
export const printableKey = (key: string): string =>
  isWellFormedUnicode(key)
    ? key
    : key.replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const numberProblem = (n: number): string | undefined => {
  if (!Number.isFinite(n)) return 'must be a finite number';
  if (Math.abs(n) > Number.MAX_SAFE_INTEGER)
    return `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
  if (n !== 0 && Math.abs(n) < SMALLEST_DYNAMO_NUMBER)
    return `must be 0 or at least ${SMALLEST_DYNAMO_NUMBER} in magnitude`;
  return undefined;
};

/**
 * The first problem in a parsed JSON value, or undefined when it can be stored as is. Walks
 * without recursion (safe on deep hostile input; depth is bounded separately).
 */
export const findJsonSafetyProblem = (value: unknown, rootPath = ''): JsonSafetyProblem | undefined => {
  const stack: Array<[unknown, string]> = [[value, rootPath]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [current, at] = entry;
    if (typeof current === 'string') {
      if (!isWellFormedUnicode(current)) return { path: at, message: 'is not well-formed Unicode (lone surrogate)' };
      continue;
    }
    if (typeof current === 'number') {
      const problem = numberProblem(current);
      if (problem) return { path: at, message: problem };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], joinPath(at, i)]);
      continue;
    }
    // Last key first, as the array's elements: the stack then yields them in order.
    for (const key of Object.keys(current).reverse()) {
      const keyPath = joinPath(at, printableKey(key));
      if (key === '')
        return { path: keyPath, message: 'key must not be empty (DynamoDB refuses empty attribute names)' };
      if (!isWellFormedUnicode(key))
        return { path: keyPath, message: 'key is not well-formed Unicode (lone surrogate)' };
      if (RESERVED_OBJECT_KEYS.has(key))
        return { path: keyPath, message: `key "${key}" is reserved (a name of Object.prototype)` };
      stack.push([(current as Record<string, unknown>)[key], keyPath]);
    }
  }
  return undefined;
};
