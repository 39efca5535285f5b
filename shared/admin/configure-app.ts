import { AppError, notFound } from '@shared/errors/app-error';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { appRepository } from '@shared/tenancy/app-repository';
import { normalizeSha256FingerprintsOrThrow, urlSchemeOrThrow } from '@shared/tenancy/app-settings';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';

/** What `admin set-app` changes; an omitted field keeps its value, null clears it. */
export interface AppSettingsChange {
  appStoreUrl?: string | null;
  iosUrlScheme?: string | null;
  appClipBundleId?: string | null;
  pasteboardHandoff?: boolean;
  playStoreUrl?: string | null;
  androidUrlScheme?: string | null;
  sha256CertFingerprints?: string[];
}

const urlOrThrow = (value: string | null | undefined, path: string) => {
  if (value === null || value === undefined) return value;
  if (!httpUrlSchema.safeParse(value).success && !/^market:\/\/details\?/.test(value)) {
    throw new AppError('invalid_request', 'Invalid store URL', [{ path, message: 'must be an absolute http(s) URL' }]);
  }
  return value;
};

const BUNDLE_ID = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

/**
 * Changes the iOS / Android settings of the deep-link app of `appDomain` (provisioning, outside
 * the HTTP API): validated and normalised here (fingerprints upper-case colon-separated, URL
 * schemes lower-case), so the edge serves what the platforms expect. The edge sees the change
 * within its app cache time (60 s). An iOS or Android setting on an app without that platform: 400.
 */
export const configureApp = async (
  appDomain: string,
  change: AppSettingsChange,
  now = new Date(),
): Promise<DeepLinkAppRecord> => {
  const host = await domainRepository.findHost(appDomain.toLowerCase());
  if (!host?.appId) throw notFound('Deep-link app');
  const app = await appRepository.getByIdOrThrow(host.workspaceId, host.appId);
  const iosChange = ['appStoreUrl', 'iosUrlScheme', 'appClipBundleId', 'pasteboardHandoff'].some(
    (k) => k in change && change[k as keyof AppSettingsChange] !== undefined,
  );
  const androidChange = ['playStoreUrl', 'androidUrlScheme', 'sha256CertFingerprints'].some(
    (k) => change[k as keyof AppSettingsChange] !== undefined,
  );
  if ((iosChange && !app.ios) || (androidChange && !app.android)) {
    throw new AppError('invalid_request', 'The app has no such platform', [
      { path: iosChange && !app.ios ? 'ios' : 'android', message: 'not configured for this app' },
    ]);
  }
  const keep = <T>(next: T | undefined, current: T) => (next === undefined ? current : next);
  if (change.appClipBundleId && !BUNDLE_ID.test(change.appClipBundleId)) {
    throw new AppError('invalid_request', 'Invalid App Clip bundle id', [
      { path: 'appClipBundleId', message: 'must be a bundle id such as com.example.app.Clip' },
    ]);
  }
  const updated: DeepLinkAppRecord = {
    ...app,
    ios: app.ios && {
      ...app.ios,
      appStoreUrl: keep(urlOrThrow(change.appStoreUrl, 'appStoreUrl'), app.ios.appStoreUrl),
      urlScheme: keep(
        change.iosUrlScheme && urlSchemeOrThrow(change.iosUrlScheme, 'iosUrlScheme'),
        app.ios.urlScheme ?? null,
      ),
      appClipBundleId: keep(change.appClipBundleId, app.ios.appClipBundleId ?? null),
      pasteboardHandoff: keep(change.pasteboardHandoff, app.ios.pasteboardHandoff ?? false),
    },
    android: app.android && {
      ...app.android,
      playStoreUrl: keep(urlOrThrow(change.playStoreUrl, 'playStoreUrl'), app.android.playStoreUrl),
      urlScheme: keep(
        change.androidUrlScheme && urlSchemeOrThrow(change.androidUrlScheme, 'androidUrlScheme'),
        app.android.urlScheme ?? null,
      ),
      sha256CertFingerprints: change.sha256CertFingerprints
        ? normalizeSha256FingerprintsOrThrow(change.sha256CertFingerprints)
        : app.android.sha256CertFingerprints,
    },
    updatedAt: now.toISOString(),
  };
  await appRepository.update(updated);
  return updated;
};
