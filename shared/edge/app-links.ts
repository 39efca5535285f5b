import { appRepository } from '@shared/tenancy/app-repository';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { ALTERNATE_LABEL, HOST_CACHE_TTL_MS } from './host-resolver';

const appCache = new Map<string, { app: DeepLinkAppRecord | undefined; expires: number }>();

/** A deep-link app, cached in memory as long as host records are (app settings change rarely). */
export const getAppCached = async (workspaceId: string, appId: string, now = Date.now()): Promise<DeepLinkAppRecord | undefined> => {
  const id = `${workspaceId}#${appId}`;
  const hit = appCache.get(id);
  if (hit && hit.expires > now) return hit.app;
  const app = await appRepository.findById(workspaceId, appId);
  if (appCache.size >= 1_000) appCache.delete(appCache.keys().next().value!);
  appCache.set(id, { app, expires: now + HOST_CACHE_TTL_MS });
  return app;
};

/** `/.well-known/apple-app-site-association`: every path of the domain except the edge's own. */
export const appleAppSiteAssociation = (app: DeepLinkAppRecord) => {
  if (!app.ios) return null;
  const appId = `${app.ios.teamId}.${app.ios.bundleId}`;
  return {
    applinks: {
      apps: [],
      details: [
        {
          appIDs: [appId],
          components: [
            { '/': '/api/*', exclude: true, comment: 'edge endpoints' },
            { '/': '/.well-known/*', exclude: true },
            { '/': '/*' },
          ],
          // Older iOS (12 and before) reads `appID` + `paths`.
          appID: appId,
          paths: ['NOT /api/*', 'NOT /.well-known/*', '/*'],
        },
      ],
    },
  };
};

/** `/.well-known/assetlinks.json`: Android App Links verification for the app's package and certificates. */
export const assetLinks = (app: DeepLinkAppRecord) => {
  if (!app.android) return null;
  return [
    {
      relation: ['delegate_permission/common.handle_all_urls'],
      target: {
        namespace: 'android_app',
        package_name: app.android.packageName,
        sha256_cert_fingerprints: app.android.sha256CertFingerprints,
      },
    },
  ];
};

/** `scheme://open.<host>[:port]`: the alternate host of an app domain's origin. */
export const alternateOrigin = (origin: string) => origin.replace('://', `://${ALTERNATE_LABEL}`);

export type LaunchMode = 'open' | 'auto';

/**
 * Where "Open in app" (and the auto-open attempt) navigates.
 * - iOS: the same link on the alternate host `open.<app domain>`, which the AASA covers too:
 *   iOS opens universal links only when the navigation crosses domains. If the app is not
 *   installed the edge answers there (store, or back to the launch view for the auto attempt).
 * - Android: an `intent://` URL naming the package (Chrome opens the installed app; otherwise it
 *   follows `browser_fallback_url`).
 */
export const openInAppUrl = (options: {
  platform: 'ios' | 'android';
  origin: string;
  key: string;
  clickId: string;
  mode: LaunchMode;
  app: DeepLinkAppRecord;
  destination: string;
}): string => {
  const { platform, origin, key, clickId, mode, app, destination } = options;
  const path = `/${encodeURIComponent(key)}`;
  if (platform === 'ios') return `${alternateOrigin(origin)}${path}?lv=${mode}&c=${encodeURIComponent(clickId)}`;
  const [scheme, host] = origin.split('://') as [string, string];
  const fallback =
    mode === 'auto' ? `${origin}${path}?lv=stay&c=${encodeURIComponent(clickId)}` : (app.android?.playStoreUrl ?? destination);
  return `intent://${host}${path}?lv=${mode}#Intent;scheme=${scheme};package=${app.android?.packageName ?? ''};S.browser_fallback_url=${encodeURIComponent(fallback)};end`;
};
