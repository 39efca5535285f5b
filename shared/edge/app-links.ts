import { LRUCache } from 'lru-cache';
import { appRepository } from '@shared/tenancy/app-repository';
import type { Tracking } from '@shared/links/link-record';
import { normalizeSha256Fingerprint } from '@shared/tenancy/app-settings';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { ALTERNATE_LABEL, HOST_CACHE_TTL_MS } from './host-resolver';

/** At most 1,000 apps (lru-cache), hits and misses alike. */
const appCache = new LRUCache<string, { app: DeepLinkAppRecord | undefined }>({ max: 1_000, ttl: HOST_CACHE_TTL_MS });

/** A deep-link app, cached in memory as long as host records are (app settings change rarely). */
export const getAppCached = async (workspaceId: string, appId: string): Promise<DeepLinkAppRecord | undefined> => {
  const id = `${workspaceId}#${appId}`;
  const hit = appCache.get(id);
  if (hit) return hit.app;
  const app = await appRepository.findById(workspaceId, appId);
  appCache.set(id, { app });
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
    // The App Clip (when the app has one) may be invoked from this domain's links too.
    ...(app.ios.appClipBundleId ? { appclips: { apps: [`${app.ios.teamId}.${app.ios.appClipBundleId}`] } } : {}),
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
        // Upper-case, colon-separated, as Google's verifier compares them (older records may hold other forms).
        sha256_cert_fingerprints: [
          ...new Set(app.android.sha256CertFingerprints.map((f) => normalizeSha256Fingerprint(f) ?? f)),
        ],
      },
    },
  ];
};

/** `scheme://open.<host>[:port]`: the alternate host of an app domain's origin. */
export const alternateOrigin = (origin: string) => origin.replace('://', `://${ALTERNATE_LABEL}`);

/**
 * The Play Store URL with Google's install referrer: `referrer=` holds the URL-encoded
 * `click_id=<id>` (and the link's utm fields), which the Play Store hands to the app after the
 * install through the Play Install Referrer API; the app sends `click_id` as `clickId` on first
 * open (docs/client-attribution.md). Null when the app has no Play Store URL.
 */
export const playStoreUrlWithReferrer = (
  playStoreUrl: string | null | undefined,
  clickId: string,
  tracking?: Tracking | null,
): string | null => {
  if (!playStoreUrl) return null;
  let url: URL;
  try {
    url = new URL(playStoreUrl);
  } catch {
    return null;
  }
  const referrer = new URLSearchParams({ click_id: clickId });
  for (const [field, param] of [
    ['utmSource', 'utm_source'],
    ['utmMedium', 'utm_medium'],
    ['utmCampaign', 'utm_campaign'],
    ['utmTerm', 'utm_term'],
    ['utmContent', 'utm_content'],
  ] as const) {
    const value = tracking?.[field];
    if (typeof value === 'string' && value !== '') referrer.set(param, value);
  }
  url.searchParams.set('referrer', referrer.toString());
  return url.toString();
};

export interface LaunchTarget {
  platform: 'ios' | 'android';
  /** `scheme://host[:port]` of the app domain. */
  origin: string;
  key: string;
  clickId: string;
  app: DeepLinkAppRecord;
  destination: string;
  tracking?: Tracking | null;
  /** The page is shown in an in-app browser (Instagram, Facebook, TikTok...). */
  inAppBrowser: boolean;
}

/**
 * Where "Open in app" navigates (a plain link, followed only on the visitor's tap). Every form
 * carries the click id (`c`), so the app that opens gets a deterministic match.
 * - iOS: the same link on the alternate host `open.<app domain>`, which the AASA covers too:
 *   iOS opens universal links only when the navigation crosses domains. Without the app the
 *   edge answers there with the App Store. In an in-app browser (where universal links mostly
 *   do not open apps) the app's custom scheme instead, when it has one: `scheme://<domain>/<key>?c=`.
 * - Android: an `intent://` URL naming the package (Chrome opens the installed app; otherwise it
 *   follows `browser_fallback_url`: the Play Store with the install referrer, else the
 *   destination). In an in-app browser the intent names the app's custom scheme when it has one.
 */
export const openInAppUrl = (target: LaunchTarget): string => {
  const { platform, origin, key, clickId, app, destination, inAppBrowser } = target;
  const path = `/${encodeURIComponent(key)}?c=${encodeURIComponent(clickId)}`;
  const [scheme, host] = origin.split('://') as [string, string];
  if (platform === 'ios') {
    if (inAppBrowser && app.ios?.urlScheme) return `${app.ios.urlScheme}://${host.replace(/:\d+$/, '')}${path}`;
    return `${alternateOrigin(origin)}${path}`;
  }
  const fallback = playStoreUrlWithReferrer(app.android?.playStoreUrl, clickId, target.tracking) ?? destination;
  const intentScheme = inAppBrowser && app.android?.urlScheme ? app.android.urlScheme : scheme;
  const intentHost = intentScheme === scheme ? host : host.replace(/:\d+$/, '');
  return `intent://${intentHost}${path}#Intent;scheme=${intentScheme};package=${app.android?.packageName ?? ''};S.browser_fallback_url=${encodeURIComponent(fallback)};end`;
};

/**
 * What the iOS pasteboard hand-off copies when the visitor taps a button (opt-in per app): the
 * link with its click id. The app reads it on first open and sends `c` as `clickId`.
 */
export const pasteboardHandoff = (origin: string, key: string, clickId: string): string =>
  `${origin}/${encodeURIComponent(key)}?c=${encodeURIComponent(clickId)}`;
