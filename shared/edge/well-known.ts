import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { appleAppSiteAssociation, assetLinks, getAppCached } from './app-links';
import { knownHostOf } from './handle-click';
import { plainNotFound } from './html/status-page';

export const AASA_PATH = '/.well-known/apple-app-site-association';
export const ASSET_LINKS_PATH = '/.well-known/assetlinks.json';

/**
 * The app-link files of a deep-link app's domain (and its alternate `open.` host), generated
 * from the app's iOS / Android settings: `application/json`, answered directly (Apple and
 * Google refuse redirects). Hosts without an app, or an app without that platform: 404.
 */
export const answerWellKnown = async (event: ApiEvent): Promise<ApiResult> => {
  const known = await knownHostOf(event);
  if (!known?.host.appId || known.host.retired) return plainNotFound();
  const app = await getAppCached(known.host.workspaceId, known.host.appId);
  if (!app) return plainNotFound();
  const body =
    event.rawPath === AASA_PATH
      ? appleAppSiteAssociation(app)
      : event.rawPath === ASSET_LINKS_PATH
        ? assetLinks(app)
        : null;
  if (!body) return plainNotFound();
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      'X-Content-Type-Options': 'nosniff',
    },
    body: JSON.stringify(body),
  };
};
