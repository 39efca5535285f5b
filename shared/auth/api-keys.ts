import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@shared/util/hash';
import { AppError } from '@shared/errors/app-error';
import { apiKeyRepository } from './api-key-repository';
import { logger } from '@shared/util/logger';
import { countFailedAuth } from './failed-auth-limit';
import { publicKeyIdOf } from './key-id';
import { recordLastUse } from './last-used';
import { keyPrefix, type ApiKeyRecord, type KeyKind } from './credential';
import { clockNow } from '@shared/runtime/services';

/** A new random key (256 bits) with its kind's prefix. Shown once; only its hash is stored. */
export const generateApiKey = (kind: KeyKind): string => keyPrefix[kind] + randomBytes(32).toString('base64url');

export const hashApiKey = (plain: string): string => sha256Hex(plain);

/**
 * Looks a presented key up by its SHA-256 hash (the lookup is the comparison: no secret is
 * compared in code). A missing, unknown, revoked or expired key fails with the same 401; a
 * presented key that fails is counted against the caller's address (`address`, the trusted
 * viewer address) and, past the limit, answers 429 instead (failed-auth-limit.ts). A key that
 * passes names itself on every later log line of the request by its public id (`keyId`, never
 * the key or its hash; the observability middleware drops it when the request ends).
 */
export const authenticateKeyOrThrow = async (
  presented: string | undefined,
  address: string | null = null,
): Promise<ApiKeyRecord> => {
  if (!presented) throw unauthorized();
  const now = keyNow();
  const record = presented.length > 512 ? undefined : await apiKeyRepository.findByHash(hashApiKey(presented));
  if (!record || record.revoked || isExpired(record, now)) {
    await countFailedAuth(address, now);
    throw unauthorized();
  }
  logger.appendKeys({ keyId: publicKeyIdOf(record) });
  await recordLastUse(record, now);
  return record;
};

/** Whether a key's life has ended (`expiresAt` reached) at `now` (ms). */
export const isExpired = (record: Pick<ApiKeyRecord, 'expiresAt'>, now: number): boolean =>
  typeof record.expiresAt === 'string' && Date.parse(record.expiresAt) <= now;

/** The time keys are checked against (ms): the keys' clock (shared/runtime/services.ts), which tests pin. */
export const keyNow = (): number => clockNow('keys');

export const unauthorized = () => new AppError('unauthorized', 'A valid API key is required');
export const forbidden = () => new AppError('forbidden', 'This key cannot be used for this route');
