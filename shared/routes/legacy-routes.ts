import { decodeLegacyDeepLinkForm, decodeLegacyLinkForm } from '@shared/legacy/legacy-form';
import type { LegacyDeepLinkForm, LegacyLinkForm } from '@shared/schemas/legacy-schemas';
import type { LegacyDeepLink, LegacyShortLink } from '@shared/legacy/legacy-link-view';
import type { LegacyRoute } from './typed-route';
import type { RouteDef } from './route-types';

/**
 * The legacy multipart endpoints (`{app_base_url}` is the service API). They answer
 * in the legacy shapes (`{success, data}` / `{success:false, msg|error}`), not in
 * the v1 envelope. `GET /api/mobile/link` is the legacy `GET /link?shortLink=`.
 */
export const legacyLinkCreateRoute: LegacyRoute<LegacyLinkForm, LegacyShortLink> = {
  decodeForm: decodeLegacyLinkForm,
  handler: 'legacy-link-create',
  method: 'POST',
  path: '/api/mobile/link/create',
  credential: 'legacy-mobile',
  api: 'service',
  grants: { table: 'readWrite', reads: ['HOST#'], writes: ['LINK#', 'SLUG#', 'WS#', 'AUDIT#'] },
  summary: 'Legacy: create a short link (multipart form, workspace mobile key)',
};

export const legacyLinkGetRoute: LegacyRoute<undefined, LegacyShortLink> = {
  handler: 'legacy-link-get',
  method: 'GET',
  path: '/api/mobile/link',
  credential: 'legacy-mobile',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#', 'SLUG#', 'HOST#'] },
  summary: 'Legacy: retrieve a short link by its full shortLink URL (workspace mobile key)',
};

export const legacyDeeplinkCreateRoute: LegacyRoute<LegacyDeepLinkForm, LegacyDeepLink> = {
  decodeForm: decodeLegacyDeepLinkForm,
  handler: 'legacy-deeplink-create',
  method: 'POST',
  path: '/api/mobile/deeplink',
  credential: 'legacy-app',
  api: 'service',
  grants: { table: 'readWrite', reads: ['HOST#'], writes: ['LINK#', 'SLUG#', 'WS#', 'AUDIT#'] },
  summary: "Legacy: create a deep link of the key's app (multipart form, deep-link app key)",
};

export const legacyDeeplinkGetRoute: LegacyRoute<undefined, LegacyDeepLink> = {
  handler: 'legacy-deeplink-get',
  method: 'GET',
  path: '/api/mobile/deeplink',
  credential: 'legacy-app',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#', 'SLUG#', 'HOST#'] },
  summary: "Legacy: retrieve a deep link of the key's app by its full shortLink URL (deep-link app key)",
};

export const legacyRoutes: RouteDef[] = [
  legacyLinkCreateRoute,
  legacyLinkGetRoute,
  legacyDeeplinkCreateRoute,
  legacyDeeplinkGetRoute,
];
