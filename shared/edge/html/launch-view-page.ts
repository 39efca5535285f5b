import type { ApiResult } from '@shared/http/api-types';
import { escapeHtml } from './escape';
import { htmlPage } from './page';

/** The edge route the page's beacons go to (same origin). */
export const LAUNCH_EVENTS_PATH = '/api/launch-view-events';

/**
 * Constant script: beacons each step (same-origin POST, survives the navigation it precedes)
 * and, unless the page is shown again after a failed attempt, tries to open the app once.
 */
const SCRIPT = `(function(){var d=document.getElementById('lv').dataset;
function send(e){try{navigator.sendBeacon(d.beacon,new URLSearchParams({k:d.key,e:e,c:d.click}))}catch(x){}}
document.getElementById('open').addEventListener('click',function(){send('primary_click')});
document.getElementById('web').addEventListener('click',function(){send('secondary_click')});
if(d.auto){send('auto_open_attempt');setTimeout(function(){location.replace(d.auto);document.documentElement.setAttribute('data-auto-opened','')},150)}})();`;

export interface LaunchViewInput {
  title: string;
  appName: string;
  key: string;
  clickId: string;
  openUrl: string;
  /** The auto-open attempt's URL; null when the page is shown after an attempt (no loop). */
  autoOpenUrl: string | null;
  destination: string;
}

export const launchViewPage = (input: LaunchViewInput): ApiResult =>
  htmlPage({
    status: 200,
    title: input.title,
    connectSelf: true,
    script: SCRIPT,
    body: `<h1>${escapeHtml(input.title)}</h1>
<p>Open this link in ${escapeHtml(input.appName)}, or continue on the website.</p>
<div id="lv" data-beacon="${LAUNCH_EVENTS_PATH}" data-key="${escapeHtml(input.key)}" data-click="${escapeHtml(input.clickId)}"${
      input.autoOpenUrl ? ` data-auto="${escapeHtml(input.autoOpenUrl)}"` : ''
    }></div>
<a id="open" class="button primary" href="${escapeHtml(input.openUrl)}">Open in app</a>
<a id="web" class="button secondary" href="${escapeHtml(input.destination)}" rel="noreferrer">Continue to website</a>`,
  });
