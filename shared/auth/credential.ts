import type { KeyScope } from './scopes';

/** Kinds of stored keys (server, mobile, app, publishable) and their visible prefixes. */
export const keyKinds = ['server', 'mobile', 'app', 'publishable'] as const;
export type KeyKind = (typeof keyKinds)[number];

export const keyPrefix: Record<KeyKind, string> = {
  server: 'sk_',
  mobile: 'mk_',
  app: 'ak_',
  publishable: 'pk_',
};

/**
 * What a route accepts. `none`: public (OpenAPI document, edge). The legacy kinds read the
 * `api-key` header too but answer in the legacy error shape (`{success:false, msg|error}`).
 */
export type CredentialKind = 'server' | 'app' | 'publishable' | 'legacy-mobile' | 'legacy-app' | 'none';

export interface PublishableRestrictions {
  environment: string;
  platform: 'browser' | 'android' | 'ios';
  origins: string[];
  androidPackage: string | null;
  androidSha256Certs: string[];
  iosBundleId: string | null;
}

export interface ApiKeyRecord {
  keyHash: string;
  kind: KeyKind;
  workspaceId: string;
  appId: string | null;
  revoked: boolean;
  createdAt: string;
  publishable: PublishableRestrictions | null;
  /** Server keys: what the key may do; absent on keys created before scopes (they have `all`). */
  scopes?: KeyScope[];
  /** The stable public id (`key_...`) logs and the `keys` admin commands use; absent on keys created before ids. */
  keyId?: string;
  /** An operator's label; a rotated key keeps it. */
  name?: string;
  /** When the key stops working (ISO time); absent or null: never. */
  expiresAt?: string | null;
  /** When the key was revoked (ISO time); `revoked` is the flag authentication reads. */
  revokedAt?: string | null;
  /** The UTC day (YYYY-MM-DD) the key was last used on: written at most once a day. */
  lastUsedOn?: string;
}

/** The authenticated caller, as handlers see it. The workspace always comes from the key. */
export interface AuthContext {
  kind: KeyKind;
  workspaceId: string;
  appId: string | null;
  publishable: PublishableRestrictions | null;
  /** The key's public id (`key_...`) and label: the actor of the changes it makes (audit log). */
  keyId: string;
  keyName: string | null;
}
