/** Stored shapes of the provisioning entities (written by the admin CLI, read by the API). */
export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Per-minute limits set by `admin set-rate-limits`; a missing field takes the default. */
  rateLimits?: Partial<Record<'serverPerMinute' | 'clientPerMinute' | 'legacyPerMinute', number>>;
}

export interface DomainRecord {
  id: string;
  workspaceId: string;
  domain: string;
  verified: boolean;
  placeholder: string | null;
  expiredUrl: string | null;
  notFoundUrl: string | null;
  primary: boolean;
  archived: boolean;
  /** SHORTLINK domains take short links; DEEPLINK domains belong to one deep-link app. */
  usage: 'SHORTLINK' | 'DEEPLINK';
  appId: string | null;
  /** Web conversion tracking for every link of the domain (`admin set-domain-conversions`); absent: off. */
  trackConversions?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface DeepLinkAppRecord {
  id: string;
  workspaceId: string;
  name: string;
  domainId: string;
  domain: string;
  defaultUrl: string;
  ios: {
    teamId: string;
    bundleId: string;
    appStoreUrl: string | null;
    /** Custom URL scheme (`myapp`) for in-app browsers, where universal links do not open the app. */
    urlScheme?: string | null;
    /** The App Clip's bundle id: the AASA then has an `appclips` section. */
    appClipBundleId?: string | null;
    /** Opt-in: the launch view's buttons copy the click's hand-off URL to the pasteboard (docs/client-attribution.md). */
    pasteboardHandoff?: boolean;
  } | null;
  android: {
    packageName: string;
    /** SHA-256 signing-certificate fingerprints, upper-case colon-separated (see app-settings.ts). */
    sha256CertFingerprints: string[];
    playStoreUrl: string | null;
    /** Custom URL scheme (`myapp`) for in-app browsers (an intent with this scheme). */
    urlScheme?: string | null;
  } | null;
  createdAt: string;
  updatedAt: string;
}

/** Host lookup record: which workspace and domain a hostname belongs to (edge hot path). */
export interface HostRecord {
  hostname: string;
  workspaceId: string;
  domainId: string;
  appId: string | null;
  /** The domain's fallbacks, copied here so the edge needs only host + slug lookups. */
  expiredUrl?: string | null;
  notFoundUrl?: string | null;
  /** The domain's web conversion tracking, copied here: the edge reads it with the host. */
  trackConversions?: boolean;
  /** Set by `domains remove`: the domain is gone; every key answers the domain's not-found answer. */
  retired?: boolean;
}
