import { getSecret } from '@shared/secrets/signing-secret';
import { sha256Hex } from '@shared/util/hash';

/**
 * Unique-visitor id: salted hash of IP + user agent with the UTC day in
 * the salt, so ids rotate daily and raw IPs are never stored.
 */
export const visitorIdFor = async (ip: string | null, userAgent: string | null, at = new Date()): Promise<string> => {
  const salt = await getSecret('visitor-salt');
  return sha256Hex(`${salt}|${at.toISOString().slice(0, 10)}|${ip ?? ''}|${userAgent ?? ''}`).slice(0, 32);
};
