import { randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** ULID-style id: 10 chars of millisecond time + 16 random chars; sorts by creation time. */
export const timeOrderedId = (now = Date.now()): string => {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD.charAt(t % 32) + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (const b of bytes) rand += CROCKFORD.charAt(b % 32);
  return time + rand;
};

export const prefixedId = (prefix: string) => `${prefix}_${timeOrderedId()}`;

/** Uniform base62 string (rejection sampling, no modulo bias). */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62.charAt(b % 62);
    }
  }
  return out;
};

export const uuid = () => randomUUID();
