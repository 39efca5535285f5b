import { afterEach, describe, expect, it } from 'vitest';
import { COOKIE_NAME, createTracker } from '@linkservice/web';

/*
 * @linkservice/web against the few browser globals it uses (location, history, document.cookie,
 * event listeners, fetch), faked: what it stores, when and what it sends. The real browser run is
 * test/e2e/web-conversions.e2e.test.ts. Imported by its name: the package as built (`web/dist`,
 * by `npm ci` or `npm run build --workspace @linkservice/web`), whose types need no DOM library.
 */

interface Sent {
  url: string;
  init: RequestInit;
}

const saved = new Map<string, PropertyDescriptor | undefined>();
const fake = (name: string, value: unknown) => {
  if (!saved.has(name)) saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
};
afterEach(() => {
  for (const [name, descriptor] of saved) {
    if (descriptor) Object.defineProperty(globalThis, name, descriptor);
    else Reflect.deleteProperty(globalThis, name);
  }
  saved.clear();
});

/** A page at `href`: the cookies the script writes, the URL it leaves, the requests it sends, its listeners. */
const page = (href: string, cookie = '') => {
  const state = { href, cookies: [] as string[], sent: [] as Sent[], listeners: new Map<string, () => void>() };
  const document = {
    visibilityState: 'visible',
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      state.cookies.push(value);
    },
    addEventListener: (type: string, listener: () => void) => state.listeners.set(`document:${type}`, listener),
  };
  fake('location', { href, protocol: new URL(href).protocol });
  fake('history', {
    state: null,
    replaceState: (_: unknown, __: string, url: string) => {
      state.href = url;
    },
  });
  fake('document', document);
  fake('addEventListener', (type: string, listener: () => void) => state.listeners.set(`window:${type}`, listener));
  fake('fetch', (url: string, init: RequestInit) => {
    state.sent.push({ url, init });
    return Promise.resolve(new Response(null, { status: 202 }));
  });
  return { state, document };
};

const TOKEN = 'v1.Y2xpY2t8bG5rXzF8d3NfMXwx.c2lnbmF0dXJlc2lnbmF0dXJl';
const options = { publishableKey: 'pk_test', apiUrl: 'https://api.example.com/' };
/** The request's body: the script always sends JSON text. */
const textOf = (sent: Sent | undefined) => sent?.init.body as string;
const bodyOf = (sent: Sent | undefined) => JSON.parse(textOf(sent)) as { events: Array<Record<string, unknown>> };

describe('@linkservice/web', () => {
  it('keeps the token from the URL in a 90-day SameSite=Lax cookie and takes it out of the address bar', () => {
    const { state } = page(`https://shop.example.com/signup?utm_source=mail&lsid=${TOKEN}`);
    const tracker = createTracker(options);
    expect(tracker.token()).toBe(TOKEN);
    expect(state.cookies).toEqual([`${COOKIE_NAME}=${TOKEN}; Max-Age=7776000; Path=/; SameSite=Lax; Secure`]);
    expect(state.href).toBe('https://shop.example.com/signup?utm_source=mail');
  });

  it("reads the workspace's parameter, a cookie of an earlier visit, and sets cookie days and domain", () => {
    const first = page(`http://shop.example.com/?ref_click=${TOKEN}`);
    createTracker({ ...options, param: 'ref_click', cookieDays: 30, cookieDomain: 'example.com' });
    expect(first.state.cookies).toEqual([
      `${COOKIE_NAME}=${TOKEN}; Max-Age=2592000; Path=/; SameSite=Lax; Domain=example.com`,
    ]);
    page('http://shop.example.com/checkout', `other=1; ${COOKIE_NAME}=${TOKEN}`);
    expect(createTracker(options).token()).toBe(TOKEN);
    page('http://shop.example.com/checkout', 'other=1');
    expect(createTracker(options).token()).toBeNull();
  });

  it('in consent mode sets no cookie until grantConsent(), and the events still carry the token', () => {
    const { state } = page(`https://shop.example.com/?lsid=${TOKEN}`);
    const tracker = createTracker({ ...options, consent: 'required' });
    tracker.track('sign_up');
    tracker.flush();
    expect(state.cookies).toEqual([]);
    expect(bodyOf(state.sent[0]).events[0]).toMatchObject({ name: 'sign_up', clickToken: TOKEN });
    tracker.grantConsent();
    expect(state.cookies).toHaveLength(1);
    expect(state.cookies[0]).toMatch(new RegExp(`^${COOKIE_NAME}=`));
  });

  it('sends nothing until the page is hidden or left, then one keepalive request per batch with the key header', () => {
    const { state, document } = page(`https://shop.example.com/?lsid=${TOKEN}`);
    const tracker = createTracker(options);
    tracker.track('sign_up', { plan: 'pro' });
    tracker.track('purchase', { amount: 49, trial: false });
    expect(state.sent).toEqual([]);
    document.visibilityState = 'hidden';
    state.listeners.get('document:visibilitychange')?.();
    expect(state.sent).toHaveLength(1);
    const [sent] = state.sent;
    expect(sent?.url).toBe('https://api.example.com/v1/client/events');
    expect(sent?.init).toMatchObject({
      method: 'POST',
      keepalive: true,
      headers: { 'content-type': 'application/json', 'x-publishable-key': 'pk_test' },
    });
    const { events } = bodyOf(sent);
    expect(events.map((e) => [e.name, e.clickToken, e.properties])).toEqual([
      ['sign_up', TOKEN, { plan: 'pro' }],
      ['purchase', TOKEN, { amount: 49, trial: false }],
    ]);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(2);
    // Sent once: leaving the page afterwards sends nothing again.
    state.listeners.get('window:pagehide')?.();
    expect(state.sent).toHaveLength(1);
  });

  it('splits the queue at 50 events and at about 60 KB a request', () => {
    const { state } = page('https://shop.example.com/');
    const tracker = createTracker(options);
    for (let i = 0; i < 120; i++) tracker.track('view');
    state.listeners.get('window:pagehide')?.();
    expect(state.sent.map((s) => bodyOf(s).events.length)).toEqual([50, 50, 20]);
    expect(bodyOf(state.sent[0]).events[0]).not.toHaveProperty('clickToken');

    state.sent.length = 0;
    const big = { text: 'x'.repeat(1000) };
    for (let i = 0; i < 50; i++)
      tracker.track('big', Object.fromEntries(Array.from({ length: 5 }, (_, k) => [`p${k}`, big.text])));
    tracker.flush();
    expect(state.sent.length).toBeGreaterThan(1);
    for (const sent of state.sent) expect(textOf(sent).length).toBeLessThan(64 * 1024);
    expect(state.sent.reduce((n, s) => n + bodyOf(s).events.length, 0)).toBe(50);
  });
});
