import type { PublishableRestrictions } from './credential';

/** Which restriction of a publishable key a request failed (`error.details.reason`). */
export type RestrictionFailure = 'environment' | 'platform' | 'origin' | 'package' | 'certificate' | 'bundle';

/** The client headers a restriction check reads (lower-case names). */
export interface ClientHeaders {
  environment?: string;
  platform?: string;
  origin?: string;
  androidPackage?: string;
  androidSha256Cert?: string;
  iosBundleId?: string;
}

/**
 * `scheme://host[:port]`, lower-case, default ports dropped; undefined for anything that is
 * not an http(s) origin (`null`, paths, garbage).
 */
export const normalizeOrigin = (value: string | undefined): string | undefined => {
  if (!value) return undefined;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
};

/** SHA-256 certificate fingerprints compare as 64 hex digits, with or without colons, any case. */
export const normalizeCertFingerprint = (value: string): string => value.replace(/[:\s]/g, '').toUpperCase();

/**
 * Checks a publishable key's restrictions: environment and platform must
 * match when sent; a browser key needs an `Origin` among its origins; an Android key needs
 * its package and one of its certificates when it has them; an iOS key its bundle id.
 * Returns the first failing restriction, or null.
 */
export const restrictionFailure = (r: PublishableRestrictions, h: ClientHeaders): RestrictionFailure | null => {
  if (h.environment !== undefined && h.environment !== r.environment) return 'environment';
  if (h.platform !== undefined && h.platform.toLowerCase() !== r.platform) return 'platform';
  switch (r.platform) {
    case 'browser': {
      const origin = normalizeOrigin(h.origin);
      const allowed = r.origins.map(normalizeOrigin);
      return origin !== undefined && allowed.includes(origin) ? null : 'origin';
    }
    case 'android': {
      if (r.androidPackage !== null && h.androidPackage !== r.androidPackage) return 'package';
      if (r.androidSha256Certs.length > 0) {
        const sent = h.androidSha256Cert === undefined ? undefined : normalizeCertFingerprint(h.androidSha256Cert);
        if (sent === undefined || !r.androidSha256Certs.map(normalizeCertFingerprint).includes(sent))
          return 'certificate';
      }
      return null;
    }
    case 'ios':
      return r.iosBundleId !== null && h.iosBundleId !== r.iosBundleId ? 'bundle' : null;
  }
};
