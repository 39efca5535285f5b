import InAppSpy from 'inapp-spy';
import type { ApiResult } from '@shared/http/api-types';
import { headerUrl } from '@shared/http/header-url';
import { isHttpUrl } from '@shared/links/short-link';
import { openInAppUrl, pasteboardHandoff } from './app-links';
import type { ClickAnswer, LaunchView } from './click-decision';
import type { EdgeRequest } from './edge-request';
import { launchViewPage } from './html/launch-view-page';
import { passwordPage } from './html/password-page';
import { previewPage } from './html/preview-page';
import { statusPage } from './html/status-page';
import { REDIRECT_CACHE_CONTROL, REDIRECT_REFERRER_POLICY } from './redirect-headers';

/**
 * Headers of every edge redirect: never cached anywhere, so every click reaches the edge and is
 * counted. The location is sent serialized (`new URL(...).href`): a header carries ASCII only.
 */
export const redirectTo = (location: string, status = 302): ApiResult => ({
  statusCode: status,
  headers: {
    Location: headerUrl(location),
    'Cache-Control': REDIRECT_CACHE_CONTROL,
    'Referrer-Policy': REDIRECT_REFERRER_POLICY,
  },
});

/** The launch view's heading: the link's title unless it is only a URL (the default title is the short link). */
const headingOf = (title: string | null | undefined, appName: string): string =>
  title && title.trim() !== '' && !isHttpUrl(title) ? title : appName;

const IN_APP_NAMES = new Set(['Facebook', 'Instagram', 'TikTok', 'Snapchat', 'LinkedIn', 'WeChat']);

/**
 * The in-app browser a user agent belongs to, or null: detected by inapp-spy (a maintained list:
 * Instagram, Facebook, TikTok, Snapchat, LinkedIn, WeChat, Line, Threads, ...); named by our
 * own browser name where we have one (inapp-spy names Facebook's Android browser "Messenger").
 */
const inAppBrowserOf = (userAgent: string | null, browser: string | null): string | null => {
  if (!userAgent) return null;
  const spy = InAppSpy({ ua: userAgent });
  if (!spy.isInApp) return null;
  return browser && IN_APP_NAMES.has(browser) ? browser : (spy.appName ?? 'in-app browser');
};

const renderLaunchView = (request: EdgeRequest, key: string, destination: string, launch: LaunchView): ApiResult => {
  const { link, app, platform, clickId } = launch;
  const inAppBrowser = inAppBrowserOf(request.userAgent, request.client.browser);
  return launchViewPage({
    heading: headingOf(link.title, app.name),
    appName: app.name,
    key,
    clickId,
    platform,
    openUrl: openInAppUrl({
      platform,
      origin: request.origin,
      key,
      clickId,
      app,
      destination,
      tracking: link.tracking,
      inAppBrowser: inAppBrowser !== null,
    }),
    destination,
    inAppBrowser,
    handoff: platform === 'ios' && app.ios?.pasteboardHandoff ? pasteboardHandoff(request.origin, key, clickId) : null,
  });
};

/** The page or redirect of a click's answer. */
export const renderClick = (request: EdgeRequest, key: string, answer: ClickAnswer): ApiResult => {
  switch (answer.kind) {
    case 'not_found':
      return answer.location ? redirectTo(answer.location) : statusPage(404);
    case 'expired':
      return answer.location ? redirectTo(answer.location) : statusPage(410);
    case 'password':
      return passwordPage({ status: 200, key });
    case 'preview':
      return previewPage({
        title: answer.link.title,
        socialPreview: answer.link.socialPreview,
        shortLink: `${request.origin}/${key}`,
        destination: answer.destination,
      });
    case 'launch_view':
      return renderLaunchView(request, key, answer.destination, answer.launch);
    case 'redirect':
      return redirectTo(answer.destination, answer.status);
  }
};
