/**
 * @linkservice/web: web conversion tracking. On a page a tracked link leads to, it reads the
 * signed click token the link service appended to the URL, keeps it in a first-party cookie,
 * and sends customer events (`track`) with it to `POST /v1/client/events`, batched, with
 * `fetch(..., { keepalive: true })` when the page is hidden or left. No dependencies.
 */

/** A customer event property: what `/v1/client/events` accepts. */
export type PropertyValue = string | number | boolean;

export interface WebOptions {
  /** A publishable browser key (`pk_...`) whose origins list this site. */
  publishableKey: string;
  /** The link service's API origin, e.g. `https://api.example.com`. */
  apiUrl: string;
  /** The query parameter the token arrives in: the workspace's (default `lsid`). */
  param?: string;
  /** The cookie's lifetime in days (default 90: how long the service accepts a token). */
  cookieDays?: number;
  /** The cookie's domain, to share it across subdomains (default: this host only). */
  cookieDomain?: string;
  /** `required`: no cookie is set until `grantConsent()` (the token is kept in memory meanwhile). */
  consent?: 'granted' | 'required';
}

export interface WebTracker {
  /** Queues a customer event (name like `sign_up`), sent with the click token when the page is hidden or by `flush()`. */
  track(name: string, properties?: Record<string, PropertyValue>): void;
  /** Consent given: the token is now kept in the cookie. */
  grantConsent(): void;
  /** Sends the queued events now. */
  flush(): void;
  /** The click token this visitor carries, or null. */
  token(): string | null;
}

/** The cookie the token is kept in. */
export const COOKIE_NAME = 'ls_click';
/** At most this many events per request (the events route's limit). */
const BATCH = 50;
/** Bytes of events per request, under the 64 KB a keepalive request may carry. */
const MAX_BODY = 60_000;

interface QueuedEvent {
  name: string;
  eventId: string;
  clickToken?: string;
  properties?: Record<string, PropertyValue>;
}

const readCookie = (): string | null => {
  const found = document.cookie.split('; ').find((c) => c.startsWith(`${COOKIE_NAME}=`));
  return found ? decodeURIComponent(found.slice(COOKIE_NAME.length + 1)) : null;
};

/** A random event id (the service deduplicates by it); `crypto.randomUUID` needs a secure context. */
const newEventId = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

export const createTracker = (options: WebOptions): WebTracker => {
  const param = options.param ?? 'lsid';
  const maxAge = Math.round((options.cookieDays ?? 90) * 86_400);
  let consented = options.consent !== 'required';
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get(param);
  const token = fromUrl ?? readCookie();
  const queue: QueuedEvent[] = [];

  if (fromUrl !== null) {
    // The token leaves the address bar: a copied or shared URL does not carry this visitor's click.
    url.searchParams.delete(param);
    history.replaceState(history.state, '', url.href);
  }

  const store = (): void => {
    if (!consented || token === null) return;
    document.cookie =
      `${COOKIE_NAME}=${encodeURIComponent(token)}; Max-Age=${String(maxAge)}; Path=/; SameSite=Lax` +
      (options.cookieDomain ? `; Domain=${options.cookieDomain}` : '') +
      (location.protocol === 'https:' ? '; Secure' : '');
  };

  const flush = (): void => {
    while (queue.length > 0) {
      // Up to 50 events and about 60 KB a request: a keepalive request's body may not pass 64 KB.
      let count = 0;
      for (let size = 0; count < Math.min(queue.length, BATCH); count++) {
        size += JSON.stringify(queue[count]).length;
        if (count > 0 && size > MAX_BODY) break;
      }
      const events = queue.splice(0, count);
      fetch(`${options.apiUrl.replace(/\/$/, '')}/v1/client/events`, {
        method: 'POST',
        keepalive: true,
        headers: { 'content-type': 'application/json', 'x-publishable-key': options.publishableKey },
        body: JSON.stringify({ events }),
      }).catch(() => undefined);
    }
  };

  store();
  addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flush();
  });

  return {
    track(name, properties) {
      queue.push({
        name,
        eventId: newEventId(),
        ...(token !== null ? { clickToken: token } : {}),
        ...(properties ? { properties } : {}),
      });
    },
    grantConsent() {
      consented = true;
      store();
    },
    flush,
    token: () => token,
  };
};
