import type { ApiResult } from '@shared/http/api-types';
import { escapeHtml } from './escape';
import { htmlPage } from './page';

/** The edge route the page's beacons go to (same origin). */
export const LAUNCH_EVENTS_PATH = '/api/launch-view-events';

/**
 * Constant script: beacons each tap (same-origin POST, survives the navigation it precedes)
 * and, when the app opted in, copies the hand-off URL on the "Open in app" tap (the user
 * gesture the clipboard needs). Nothing happens without a tap: no timer, no navigation from
 * script (browsers block app opens without a gesture, and in-app browsers can land on
 * ERR_UNKNOWN_URL_SCHEME). Both buttons stay plain links.
 */
const SCRIPT = `(function(){var d=document.getElementById('lv').dataset;
function send(e){try{navigator.sendBeacon(d.beacon,new URLSearchParams({k:d.key,e:e,c:d.click}))}catch(x){}}
function handoff(){try{if(d.handoff&&navigator.clipboard)navigator.clipboard.writeText(d.handoff).catch(function(){})}catch(x){}}
document.getElementById('open').addEventListener('click',function(){handoff();send('primary_click')});
document.getElementById('web').addEventListener('click',function(){send('secondary_click')});})();`;

export interface LaunchViewInput {
  /** The page heading: the link's title, else the app's name (never a raw URL). */
  heading: string;
  appName: string;
  key: string;
  clickId: string;
  platform: 'ios' | 'android';
  openUrl: string;
  destination: string;
  /** The in-app browser's name (Instagram, TikTok...), or null in a real browser. */
  inAppBrowser: string | null;
  /** The iOS pasteboard hand-off URL (opt-in per app), or null. */
  handoff: string | null;
}

const inAppHint = (input: LaunchViewInput) =>
  input.inAppBrowser
    ? `\n<p class="hint" id="hint">Already have ${escapeHtml(input.appName)}? If it does not open, open this page in ${
        input.platform === 'ios' ? 'Safari' : 'Chrome'
      } (the ${escapeHtml(input.inAppBrowser)} menu, then “Open in ${input.platform === 'ios' ? 'Safari' : 'browser'}”).</p>`
    : '';

export const launchViewPage = (input: LaunchViewInput): ApiResult =>
  htmlPage({
    status: 200,
    title: input.heading,
    connectSelf: true,
    script: SCRIPT,
    body: `<h1>${escapeHtml(input.heading)}</h1>
<p>Open this link in ${escapeHtml(input.appName)}, or continue on the website.</p>
<div id="lv" data-beacon="${LAUNCH_EVENTS_PATH}" data-key="${escapeHtml(input.key)}" data-click="${escapeHtml(input.clickId)}"${
      input.handoff ? ` data-handoff="${escapeHtml(input.handoff)}"` : ''
    }></div>
<a id="open" class="button primary" href="${escapeHtml(input.openUrl)}">Open in app</a>
<a id="web" class="button secondary" href="${escapeHtml(input.destination)}" rel="noreferrer">Continue to website</a>${inAppHint(input)}${
      input.handoff
        ? `\n<p class="hint">“Open in app” copies this link so that ${escapeHtml(input.appName)} can open it after you install it.</p>`
        : ''
    }`,
  });
