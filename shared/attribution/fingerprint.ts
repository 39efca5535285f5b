import ipaddr from 'ipaddr.js';
import { getSecret } from '@shared/secrets/signing-secret';
import { sha256Hex } from '@shared/util/hash';

export interface FingerprintInput {
  /** The viewer IP as the edge / API reads it. */
  ip: string | null;
  /** ios, android, desktop, other. */
  platform: string;
}

/**
 * The part of an IP that the browser's tap and the app's first open share: an IPv4 address
 * whole; an IPv6 address by its /64 prefix (phones rotate temporary IPv6 addresses, RFC 8981,
 * so the browser and the app often use different interface ids of the same /64); an
 * IPv4-mapped IPv6 address as its IPv4. ipaddr.js parses every textual form (compressed,
 * zone ids, embedded IPv4), which is why it is used rather than a hand-written parser.
 * Null when the text is no IP.
 */
export const networkOf = (ip: string): string | null => {
  const text = ip.trim().replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return null;
  const parsed = ipaddr.process(text);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
};

/**
 * Device fingerprint for probabilistic matching (DESIGN.md 7): a salted hash of the viewer's
 * network (see networkOf) and platform. Not the OS version: browsers freeze it (reduced Chrome
 * on Android says `Android 10; K`, Safari on iOS 26 says `18_6`) while the app's own user agent
 * (Dalvik, CFNetwork) reports the real one or none, so a web tap and the app's first open would
 * never agree. The salt is a per-deployment secret; the IP is never stored. No IP, no fingerprint.
 */
export const deviceFingerprint = async (input: FingerprintInput): Promise<string | null> => {
  const network = input.ip ? networkOf(input.ip) : null;
  if (!network) return null;
  const salt = await getSecret('ip-salt');
  return sha256Hex(`${salt}|${network}|${input.platform}`);
};
