import { createHash } from 'node:crypto';
import { timeOrderedId } from '@shared/util/ids';
import type { ApiKeyRecord } from './credential';

/**
 * The id a key stored before public ids existed gets: `key_` + its creation time + 16 characters
 * of a SHA-256 of its stored hash (one-way: the id reveals neither the key nor its hash). Derived,
 * not drawn, so the log lines of such a key name it by the same id before and after
 * `keys backfill-ids` writes it, and a backfill run twice (or two at once) gives the same id.
 */
export const derivedKeyId = (keyHash: string, createdAt: string): string => {
  const created = Date.parse(createdAt);
  const entropy = createHash('sha256').update(`key-id:${keyHash}`).digest();
  return `key_${timeOrderedId(Number.isFinite(created) && created > 0 ? created : 0, entropy)}`;
};

/** A key's public id (`key_...`): the stored one, else the one the backfill will store. */
export const publicKeyIdOf = (record: Pick<ApiKeyRecord, 'keyId' | 'keyHash' | 'createdAt'>): string =>
  record.keyId ?? derivedKeyId(record.keyHash, record.createdAt);
