import type { BootstrapResult } from '@shared/admin/bootstrap';
import type { CredentialKind } from '@shared/auth/credential';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import type { RouteDef } from '@shared/routes/route-types';
import { TEST_ORIGIN } from '@test/support/test-origin';

/** What each tenant owns in a reliability run: ids that must never leak to the other tenant. */
export interface TenantFixture {
  tenant: BootstrapResult;
  shortLink: { id: string; key: string; domain: string };
  deepLink: { id: string; key: string; domain: string };
}

export const makeTenantFixture = async (tenant: BootstrapResult): Promise<TenantFixture> => {
  const shortLink = await createShortLink(
    tenant.workspaceId,
    {
      url: 'https://example.com/fixture',
      domain: tenant.domain,
      title: 'fixture',
    },
    TEST_ORIGIN,
  );
  const deepLink = await createDeepLink(
    tenant.workspaceId,
    {
      deepLinkAppId: tenant.deepLinkApp.id,
      title: 'deep fixture',
    },
    TEST_ORIGIN,
  );
  return {
    tenant,
    shortLink: { id: shortLink.id, key: shortLink.key, domain: shortLink.domain },
    deepLink: { id: deepLink.id, key: deepLink.key, domain: deepLink.domain },
  };
};

/** Strings whose presence in a response would show the tenant's data. */
export const secretsOf = (f: TenantFixture): string[] => [
  f.tenant.workspaceId,
  f.tenant.domainId,
  f.tenant.deepLinkApp.id,
  f.shortLink.id,
  f.deepLink.id,
];

export interface CaseRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** Legacy routes: multipart/form-data fields. */
  form?: Record<string, string>;
  /** Any other body, sent as is (with its content type in `headers`). */
  body?: string;
  /** Edge routes: the Host header. */
  host?: string;
}

/** The headers a credential kind needs, with the given tenant's keys. */
export const credentialHeaders = (kind: CredentialKind, tenant: BootstrapResult): Record<string, string> => {
  switch (kind) {
    case 'server':
      return { 'api-key': tenant.serverKey };
    case 'app':
    case 'legacy-app':
      return { 'api-key': tenant.deepLinkApp.appKey };
    case 'legacy-mobile':
      return { 'api-key': tenant.mobileKey };
    case 'publishable':
      return { 'x-publishable-key': tenant.publishableKeys.browser.key, origin: tenant.publishableKeys.browser.origin };
    case 'none':
      return {};
  }
};

/** Every key a tenant has, by kind, to try on routes that want another kind. */
export const allKeyHeaders = (tenant: BootstrapResult): Array<{ kind: string; headers: Record<string, string> }> => [
  { kind: 'server', headers: { 'api-key': tenant.serverKey } },
  { kind: 'mobile', headers: { 'api-key': tenant.mobileKey } },
  { kind: 'app', headers: { 'api-key': tenant.deepLinkApp.appKey } },
  {
    kind: 'publishable-header',
    headers: { 'x-publishable-key': tenant.publishableKeys.browser.key, origin: tenant.publishableKeys.browser.origin },
  },
  { kind: 'publishable-bearer', headers: { authorization: `Bearer ${tenant.publishableKeys.ios.key}` } },
  { kind: 'publishable-as-api-key', headers: { 'api-key': tenant.publishableKeys.android.key } },
];

/**
 * For each route (by handler name): the request that targets `target`'s resources. The tenant
 * wall test sends it with the other tenant's credentials; the hostile-input test mutates it.
 * A route in the route table without an entry here fails the suite.
 */
export type RouteCase = (target: TenantFixture, route: RouteDef) => CaseRequest;

const shortUrl = (l: TenantFixture['shortLink']) => `https://${l.domain}/${l.key}`;
const client = (path: string, json: unknown): CaseRequest => ({
  method: 'POST',
  path,
  json,
  headers: { 'user-agent': IPHONE_UA },
});
export const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';

export const routeCases: Record<string, RouteCase> = {
  // v1 management
  'links-list': (t) => ({ method: 'GET', path: `/v1/links?search=fixture&domain=${t.shortLink.domain}` }),
  'links-create': (t) => ({
    method: 'POST',
    path: '/v1/links',
    json: { url: 'https://example.com/x', domain: t.tenant.domain },
  }),
  'links-bulk-create': (t) => ({
    method: 'POST',
    path: '/v1/links/bulk',
    json: {
      links: [{ url: 'https://example.com/bulk', domain: t.tenant.domain, geo: { de: 'https://example.de/bulk' } }],
    },
  }),
  'links-get': (t) => ({ method: 'GET', path: `/v1/links/${t.shortLink.id}` }),
  'links-qr': (t) => ({ method: 'GET', path: `/v1/links/${t.shortLink.id}/qr?format=png&size=128` }),
  'deep-links-qr': (t) => ({ method: 'GET', path: `/v1/deep-links/${t.deepLink.id}/qr` }),
  'links-patch': (t) => ({
    method: 'PATCH',
    path: `/v1/links/${t.shortLink.id}`,
    json: { title: 'changed', tags: ['x'] },
  }),
  'links-archive': (t) => ({ method: 'DELETE', path: `/v1/links/${t.shortLink.id}` }),
  'deep-links-list': () => ({ method: 'GET', path: '/v1/deep-links?search=fixture' }),
  'deep-links-create': (t) => ({
    method: 'POST',
    path: '/v1/deep-links',
    json: { deepLinkAppId: t.tenant.deepLinkApp.id },
  }),
  'deep-links-get': (t) => ({ method: 'GET', path: `/v1/deep-links/${t.deepLink.id}` }),
  'deep-links-patch': (t) => ({ method: 'PATCH', path: `/v1/deep-links/${t.deepLink.id}`, json: { title: 'changed' } }),
  'deep-links-archive': (t) => ({ method: 'DELETE', path: `/v1/deep-links/${t.deepLink.id}` }),
  'domains-list': (t) => ({ method: 'GET', path: `/v1/domains?search=${t.tenant.domain.slice(0, 10)}` }),
  'domains-get': (t) => ({ method: 'GET', path: `/v1/domains/${t.tenant.domainId}` }),
  // client attribution
  'client-resolve': (t) => client('/v1/client/resolve', { linkId: t.shortLink.id }),
  'client-click': (t) => client('/v1/client/attribution/click', { shortLink: shortUrl(t.shortLink) }),
  'client-deferred-deep-link': (t) =>
    client('/v1/client/deferred-deep-link', { domain: t.deepLink.domain, key: t.deepLink.key }),
  'client-first-open': (t) =>
    client('/v1/client/first-open', { linkId: t.deepLink.id, installId: `install-${t.tenant.workspaceId}` }),
  'client-events': (t) =>
    client('/v1/client/events', { events: [{ name: 'purchase', linkId: t.shortLink.id, properties: { amount: 3 } }] }),
  'client-preflight': (t) => ({
    method: 'OPTIONS',
    path: '/v1/client/resolve',
    headers: {
      origin: t.tenant.publishableKeys.browser.origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-publishable-key,content-type',
    },
  }),
  // analytics
  'analytics-link': (t) => ({ method: 'GET', path: `/v1/analytics/links/${t.shortLink.id}?range=24h&traffic=all` }),
  'analytics-deep-link-app': () => ({ method: 'GET', path: '/v1/analytics/deep-link-app?range=7d' }),
  'analytics-events': () => ({ method: 'GET', path: '/v1/analytics/events?range=24h&limit=5' }),
  'audit-log-list': (t) => ({ method: 'GET', path: `/v1/audit-log?resourceId=${t.shortLink.id}&limit=5` }),
  // Console sessions (public: the key is in the body). A key of another kind reaches the route
  // and is refused (403) without counting a failed key or naming the workspace.
  'sessions-create': (t) => ({ method: 'POST', path: '/v1/sessions', json: { apiKey: t.tenant.mobileKey } }),
  'sessions-delete': () => ({ method: 'DELETE', path: '/v1/sessions/current' }),
  // legacy
  'legacy-link-create': () => ({
    method: 'POST',
    path: '/api/mobile/link/create',
    form: { url: 'https://example.com/legacy', title: 'legacy' },
  }),
  'legacy-link-get': (t) => ({
    method: 'GET',
    path: `/api/mobile/link?shortLink=${encodeURIComponent(shortUrl(t.shortLink))}`,
  }),
  'legacy-deeplink-create': () => ({ method: 'POST', path: '/api/mobile/deeplink', form: { title: 'legacy deep' } }),
  'legacy-deeplink-get': (t) => ({
    method: 'GET',
    path: `/api/mobile/deeplink?shortLink=${encodeURIComponent(shortUrl(t.deepLink))}`,
  }),
  // meta
  'openapi-get': () => ({ method: 'GET', path: '/v1/openapi.json' }),
  'not-found': () => ({ method: 'GET', path: '/v1/no-such-route' }),
  // edge (public; the Host header names the link's domain)
  // edge-links answers every link-domain path but the beacon and /.well-known (one origin behind CloudFront)
  'edge-links': (t, route): CaseRequest => {
    if (route.path === '$default') return { method: 'GET', path: '/a/b/c', host: t.shortLink.domain };
    if (route.method === 'POST') {
      return {
        method: 'POST',
        path: `/${t.shortLink.key}`,
        host: t.shortLink.domain,
        body: 'password=wrong',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': IPHONE_UA },
      };
    }
    return {
      method: route.method,
      path: `/${t.shortLink.key}`,
      host: t.shortLink.domain,
      headers: { 'user-agent': IPHONE_UA },
    };
  },
  'edge-launch-events': (t) => ({
    method: 'POST',
    path: '/api/launch-view-events',
    host: t.deepLink.domain,
    body: `k=${t.deepLink.key}&e=primary_click`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': IPHONE_UA },
  }),
  'edge-well-known': (t, route) => ({ method: 'GET', path: route.path, host: t.deepLink.domain }),
};

/** A multipart/form-data body (CRLF line breaks) and its content type. */
export const multipartBody = (fields: Record<string, unknown>, boundary = 'reliability-boundary') => ({
  contentType: `multipart/form-data; boundary=${boundary}`,
  body: Buffer.from(
    Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${typeof value === 'string' ? value : JSON.stringify(value)}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`,
  ),
});
