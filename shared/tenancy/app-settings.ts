import { AppError } from '@shared/errors/app-error';

/**
 * An Android signing-certificate SHA-256 fingerprint as assetlinks.json wants it: 32 bytes,
 * upper-case hex, colon-separated (`14:6D:E9:...`). Accepts the forms tools print (keytool's
 * colon-separated, Play Console's, bare hex, any case); null for anything that is not 32 bytes
 * of hex.
 */
export const normalizeSha256Fingerprint = (value: string): string | null => {
  const hex = value.trim().replace(/[:\s-]/g, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  return hex.toUpperCase().replace(/..(?!$)/g, '$&:');
};

/** The normalised fingerprints, or 400 `invalid_request` naming each bad one. */
export const normalizeSha256FingerprintsOrThrow = (values: string[]): string[] => {
  const normalized = values.map((value) => normalizeSha256Fingerprint(value));
  const details = normalized.flatMap((fingerprint, i) =>
    fingerprint === null
      ? [{ path: `sha256CertFingerprints.${i}`, message: 'must be 32 bytes of hex (AB:CD:...)' }]
      : [],
  );
  if (values.length === 0) details.push({ path: 'sha256CertFingerprints', message: 'at least one fingerprint' });
  if (details.length) throw new AppError('invalid_request', 'Invalid Android certificate fingerprint', details);
  return [...new Set(normalized.filter((fingerprint) => fingerprint !== null))];
};

/** Schemes the edge already uses or that no app may own. */
const RESERVED_SCHEMES = new Set([
  'http',
  'https',
  'intent',
  'javascript',
  'data',
  'file',
  'blob',
  'about',
  'mailto',
  'tel',
  'sms',
  'market',
  'itms-apps',
  'ws',
  'wss',
]);

/**
 * A custom URL scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`), lower-cased;
 * or 400 naming `path`.
 */
export const urlSchemeOrThrow = (value: string, path: string): string => {
  const scheme = value.trim().replace(/:\/*$/, '').toLowerCase();
  if (!/^[a-z][a-z0-9+.-]{0,63}$/.test(scheme) || RESERVED_SCHEMES.has(scheme)) {
    throw new AppError('invalid_request', 'Invalid URL scheme', [
      { path, message: 'must be a custom scheme such as myapp (letters, digits, + - .)' },
    ]);
  }
  return scheme;
};
