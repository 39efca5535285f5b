/**
 * The script tag build (`dist/linkservice-web.min.js`): configured by its `data-*` attributes,
 * it sets `window.linkservice` to the tracker.
 *
 * `<script src=".../linkservice-web.min.js" data-publishable-key="pk_..." data-api-url="https://api.example.com"></script>`
 * Optional: `data-param`, `data-cookie-days`, `data-cookie-domain`, `data-consent="required"`.
 */
import { createTracker, type WebTracker } from './index.js';

declare global {
  interface Window {
    linkservice?: WebTracker;
  }
}

const data = (document.currentScript as HTMLScriptElement | null)?.dataset ?? {};
window.linkservice = createTracker({
  publishableKey: data.publishableKey ?? '',
  apiUrl: data.apiUrl ?? '',
  ...(data.param ? { param: data.param } : {}),
  ...(data.cookieDays ? { cookieDays: Number(data.cookieDays) } : {}),
  ...(data.cookieDomain ? { cookieDomain: data.cookieDomain } : {}),
  ...(data.consent === 'required' ? { consent: 'required' as const } : {}),
});
