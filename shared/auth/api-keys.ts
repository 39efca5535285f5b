import { randomBytes } from 'node:crypto';
import { safeEqual, sha256Hex } from '@shared/util/hash';
import { AppError } from '@shared/errors/app-error';
import { apiKeyRepository } from './api-key-repository';
import { recordLastUse } from './last-used';
import { keyPrefix, type ApiKeyRecord, type KeyKind } from './credential';

/** A new random key (256 bits) with its kind's prefix. Shown once; only its hash is stored. */
export const generateApiKey = (kind: KeyKind): string => keyPrefix[kind] + randomBytes(32).toString('base64url');

export const hashApiKey = (plain: string): string => sha256Hex(plain);

/**
 * Looks a presented key up by hash. Unknown and revoked keys take the same path (the lookup,
 * then a constant-time comparison of the hashes) and fail with the same 401.
 */
export const authenticateKeyOrThrow = async (presented: string | undefined): Promise<ApiKeyRecord> => {
  if (!presented || presented.length > 512) throw unauthorized();
  const hash = hashApiKey(presented);
  const record = await apiKeyRepository.findByHash(hash);
  const storedHash = record?.keyHash ?? '0'.repeat(64);
  const matches = safeEqual(storedHash, hash);
  const now = keyClock();
  if (!record || !matches || record.revoked || isExpired(record, now)) throw unauthorized();
  await recordLastUse(record, now);
  return record;
};

/** Whether a key's life has ended (`expiresAt` reached) at `now` (ms). */
export const isExpired = (record: Pick<ApiKeyRecord, 'expiresAt'>, now: number): boolean =>
  typeof record.expiresAt === 'string' && Date.parse(record.expiresAt) <= now;

let keyClock: () => number = Date.now;
/** Tests: a fake clock for key expiry (rotation overlaps); undefined restores the real one. */
export const setKeyClock = (now: (() => number) | undefined): void => {
  keyClock = now ?? Date.now;
};

export const unauthorized = () => new AppError('unauthorized', 'A valid API key is required');
export const forbidden = () => new AppError('forbidden', 'This key cannot be used for this route');
