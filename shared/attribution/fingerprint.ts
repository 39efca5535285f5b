import { isIP } from 'node:net';
import { getSecret } from '@shared/secrets/signing-secret';
import { sha256Hex } from '@shared/util/hash';
import { required } from '@shared/util/required';

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
 * IPv4-mapped IPv6 address as its IPv4. Node parses: `net.isIP` validates and the WHATWG URL
 * host parser writes any IPv6 text (compressed, upper-case, embedded IPv4) in its one canonical
 * form, which is only cut at /64 here (ipaddr.js did the same for 13 KB of every bundle).
 * Null when the text is no IP.
 */
export const networkOf = (ip: string): string | null => {
  const text = ip
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return null;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const hi = parseInt(required(groups[6], 'group 7 of an IPv6 address'), 16);
    const lo = parseInt(required(groups[7], 'group 8 of an IPv6 address'), 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
};

/**
 * Device fingerprint for probabilistic matching: a salted hash of the viewer's
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
