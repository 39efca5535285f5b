import { createHash } from 'node:crypto';
import type { ApiKeyRecord } from './credential';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `value` in `length` Crockford base-32 digits, most significant first (as ids.ts writes a time). */
const base32 = (value: number, length: number): string => {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
};

/**
 * The id a key stored before public ids existed gets, in the format of every key id (`key_` +
 * 10 characters of creation time, as timeOrderedId in ids.ts writes it, + 16 more): its creation
 * time, then 16 characters of a SHA-256 of its stored hash (one-way: the id reveals neither the
 * key nor its hash). Derived, not drawn, so the log lines of such a key name it by the same id
 * before and after `keys backfill-ids` writes it, and a backfill run twice (or two at once) gives
 * the same id. Written here rather than with ids.ts so that module stays out of keyed handlers.
 */
export const derivedKeyId = (keyHash: string, createdAt: string): string => {
  const created = Date.parse(createdAt);
  const digest = createHash('sha256').update(`key-id:${keyHash}`).digest();
  let tail = '';
  for (const byte of digest.subarray(0, 16)) tail += CROCKFORD.charAt(byte % 32);
  return `key_${base32(Number.isFinite(created) && created > 0 ? created : 0, 10)}${tail}`;
};

/** A key's public id (`key_...`): the stored one, else the one the backfill will store. */
export const publicKeyIdOf = (record: Pick<ApiKeyRecord, 'keyId' | 'keyHash' | 'createdAt'>): string =>
  record.keyId ?? derivedKeyId(record.keyHash, record.createdAt);
