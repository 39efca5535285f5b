import { getSecret } from '@shared/secrets/signing-secret';
import { sha256Hex } from '@shared/util/hash';

export interface FingerprintInput {
  ip: string | null;
  /** ios, android, desktop, other. */
  platform: string;
  osMajor: string | null;
}

/**
 * Device fingerprint for probabilistic matching (DESIGN.md 7): a salted hash of client IP,
 * platform and OS major version. The salt is a per-deployment secret; the IP is never stored.
 * No IP, no fingerprint.
 */
export const deviceFingerprint = async (input: FingerprintInput): Promise<string | null> => {
  if (!input.ip) return null;
  const salt = await getSecret('ip-salt');
  return sha256Hex(`${salt}|${input.ip}|${input.platform}|${input.osMajor ?? ''}`);
};
