import { issueKey } from './api-key-lifecycle';
import type { KeyKind, PublishableRestrictions } from '@shared/auth/credential';
import { appRepository } from '@shared/tenancy/app-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DeepLinkAppRecord, DomainRecord } from '@shared/tenancy/tenancy-types';
import { ensureSecrets } from '@shared/secrets/signing-secret';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { prefixedId, randomBase62 } from '@shared/util/ids';
import { ALTERNATE_LABEL } from '@shared/links/link-domain';
import { DomainFlowError, normalizeDomain } from './domain-name';

export interface BootstrapOptions {
  baseUrl: string;
  edgeUrl: string;
  name?: string;
  /** Short-link domain; default `links-<random>.localhost` (browsers resolve *.localhost to loopback). */
  domain?: string;
  appDomain?: string;
  appDefaultUrl?: string;
  browserOrigin?: string;
}

/** The JSON `admin bootstrap --json` prints. */
export interface BootstrapResult {
  baseUrl: string;
  edgeUrl: string;
  workspaceId: string;
  serverKey: string;
  mobileKey: string;
  domain: string;
  domainId: string;
  deepLinkApp: { id: string; appKey: string; domain: string; defaultUrl: string };
  publishableKeys: {
    browser: { key: string; environment: string; origin: string };
    android: { key: string; environment: string; package: string; sha256Cert: string };
    ios: { key: string; environment: string; bundleId: string };
  };
}

const ENVIRONMENT = 'production';

const newDomain = (
  workspaceId: string,
  domain: string,
  usage: DomainRecord['usage'],
  appId: string | null,
  now: string,
): DomainRecord => ({
  id: prefixedId('dom'),
  workspaceId,
  domain: domain.toLowerCase(),
  verified: true,
  placeholder: null,
  expiredUrl: null,
  notFoundUrl: null,
  primary: usage === 'SHORTLINK',
  archived: false,
  usage,
  appId,
  createdAt: now,
  updatedAt: now,
});

const storeKey = async (
  kind: KeyKind,
  workspaceId: string,
  appId: string | null,
  publishable: PublishableRestrictions | null,
  now: string,
): Promise<string> => {
  const { key } = await issueKey({
    workspaceId,
    kind,
    name: `bootstrap ${kind}${publishable ? ` ${publishable.platform}` : ''}`,
    ...(kind === 'server' ? { scopes: ['all'] } : {}),
    appId,
    publishable,
    now: Date.parse(now),
  });
  return key;
};

/**
 * The two domain names, checked before anything is written: DNS names, distinct, not an
 * `open.` host (those come with a deep-link domain) and not a link domain already.
 */
const freeDomainNames = async (short: string, app: string): Promise<[string, string]> => {
  const names: [string, string] = [normalizeDomain(short), normalizeDomain(app)];
  if (names[0] === names[1])
    throw new DomainFlowError(`The short-link domain and the deep-link app domain must differ (both ${names[0]})`);
  for (const name of names) {
    if (name.startsWith(ALTERNATE_LABEL))
      throw new DomainFlowError(`${name}: ${ALTERNATE_LABEL}<domain> hosts come with their deep-link domain`);
    if (await domainRepository.findHost(name))
      throw new DomainFlowError(`${name} is already a link domain (of this or another workspace)`, 'conflict');
  }
  return names;
};

/**
 * Provisions a complete tenant (outside the HTTP API: tenants are provisioned by an operator): workspace, primary short-link domain,
 * deep-link app with its own domain, and one key of every kind. Refuses a bad or taken domain
 * name before writing anything.
 */
export const bootstrapTenant = async (options: BootstrapOptions): Promise<BootstrapResult> => {
  const suffix = randomBase62(8).toLowerCase();
  const [shortName, appName] = await freeDomainNames(
    options.domain ?? `links-${suffix}.localhost`,
    options.appDomain ?? `app-${suffix}.localhost`,
  );
  await ensureSecrets();
  const now = new Date().toISOString();
  const workspaceId = prefixedId('ws');
  await workspaceRepository.put({ id: workspaceId, name: options.name ?? `Demo ${suffix}`, createdAt: now });

  const shortDomain = newDomain(workspaceId, shortName, 'SHORTLINK', null, now);
  await domainRepository.create(shortDomain);

  const appId = prefixedId('app');
  const appDomain = newDomain(workspaceId, appName, 'DEEPLINK', appId, now);
  await domainRepository.create(appDomain);
  const sha256Cert = Array.from({ length: 32 }, (_, i) =>
    ((i * 37 + suffix.charCodeAt(i % suffix.length)) % 256).toString(16).padStart(2, '0').toUpperCase(),
  ).join(':');
  const bundleId = `com.example.demo${suffix}`;
  const androidPackage = `com.example.demo${suffix}`;
  const app: DeepLinkAppRecord = {
    id: appId,
    workspaceId,
    name: 'Demo app',
    domainId: appDomain.id,
    domain: appDomain.domain,
    defaultUrl: options.appDefaultUrl ?? 'https://www.example.com/app',
    // Custom URL schemes for in-app browsers; the pasteboard hand-off and an App Clip are opt-in (`admin set-app`).
    ios: {
      teamId: 'ABCDE12345',
      bundleId,
      appStoreUrl: 'https://apps.apple.com/app/id000000000',
      urlScheme: `demo${suffix}`,
      appClipBundleId: null,
      pasteboardHandoff: false,
    },
    android: {
      packageName: androidPackage,
      sha256CertFingerprints: [sha256Cert],
      playStoreUrl: `https://play.google.com/store/apps/details?id=${androidPackage}`,
      urlScheme: `demo${suffix}`,
    },
    createdAt: now,
    updatedAt: now,
  };
  await appRepository.put(app);

  const origin = options.browserOrigin ?? 'https://www.example.com';
  const restrictions = (
    platform: PublishableRestrictions['platform'],
    extra: Partial<PublishableRestrictions>,
  ): PublishableRestrictions => ({
    environment: ENVIRONMENT,
    platform,
    origins: [],
    androidPackage: null,
    androidSha256Certs: [],
    iosBundleId: null,
    ...extra,
  });

  const [serverKey, mobileKey, appKey, browserKey, androidKey, iosKey] = await Promise.all([
    storeKey('server', workspaceId, null, null, now),
    storeKey('mobile', workspaceId, null, null, now),
    storeKey('app', workspaceId, appId, null, now),
    storeKey('publishable', workspaceId, null, restrictions('browser', { origins: [origin] }), now),
    storeKey(
      'publishable',
      workspaceId,
      null,
      restrictions('android', { androidPackage, androidSha256Certs: [sha256Cert] }),
      now,
    ),
    storeKey('publishable', workspaceId, null, restrictions('ios', { iosBundleId: bundleId }), now),
  ]);

  return {
    baseUrl: options.baseUrl,
    edgeUrl: options.edgeUrl,
    workspaceId,
    serverKey,
    mobileKey,
    domain: shortDomain.domain,
    domainId: shortDomain.id,
    deepLinkApp: { id: appId, appKey, domain: appDomain.domain, defaultUrl: app.defaultUrl },
    publishableKeys: {
      browser: { key: browserKey, environment: ENVIRONMENT, origin },
      android: { key: androidKey, environment: ENVIRONMENT, package: androidPackage, sha256Cert },
      ios: { key: iosKey, environment: ENVIRONMENT, bundleId },
    },
  };
};
