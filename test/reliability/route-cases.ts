import type { BootstrapResult } from '@shared/admin/bootstrap';
import type { CredentialKind } from '@shared/auth/credential';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import type { RouteDef } from '@shared/routes/route-types';

/** What each tenant owns in a reliability run: ids that must never leak to the other tenant. */
export interface TenantFixture {
  tenant: BootstrapResult;
  shortLink: { id: string; key: string; domain: string };
  deepLink: { id: string; key: string; domain: string };
}

export const makeTenantFixture = async (tenant: BootstrapResult): Promise<TenantFixture> => {
  const shortLink = await createShortLink(tenant.workspaceId, { url: 'https://example.com/fixture', domain: tenant.domain, title: 'fixture' });
  const deepLink = await createDeepLink(tenant.workspaceId, { deepLinkAppId: tenant.deepLinkApp.id, title: 'deep fixture' });
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
  { kind: 'publishable-header', headers: { 'x-publishable-key': tenant.publishableKeys.browser.key, origin: tenant.publishableKeys.browser.origin } },
  { kind: 'publishable-bearer', headers: { authorization: `Bearer ${tenant.publishableKeys.ios.key}` } },
  { kind: 'publishable-as-api-key', headers: { 'api-key': tenant.publishableKeys.android.key } },
];

/**
 * For each route (by handler name): the request that targets `target`'s resources. The tenant
 * wall test sends it with the other tenant's credentials; the hostile-input test mutates it.
 * A route in the route table without an entry here fails the suite.
 */
export type RouteCase = (target: TenantFixture, route: RouteDef) => CaseRequest;

export const routeCases: Record<string, RouteCase> = {
  'links-create': (t) => ({ method: 'POST', path: '/v1/links', json: { url: 'https://example.com/x', domain: t.tenant.domain } }),
  'links-get': (t) => ({ method: 'GET', path: `/v1/links/${t.shortLink.id}` }),
  'not-found': () => ({ method: 'GET', path: '/v1/no-such-route' }),
  'legacy-link-create': () => ({ method: 'POST', path: '/api/mobile/link/create', form: { url: 'https://example.com/legacy', title: 'legacy' } }),
  'legacy-link-get': (t) => ({ method: 'GET', path: `/api/mobile/link?shortLink=${encodeURIComponent(`https://${t.shortLink.domain}/${t.shortLink.key}`)}` }),
  'legacy-deeplink-create': () => ({ method: 'POST', path: '/api/mobile/deeplink', form: { title: 'legacy deep' } }),
  'legacy-deeplink-get': (t) => ({ method: 'GET', path: `/api/mobile/deeplink?shortLink=${encodeURIComponent(`https://${t.deepLink.domain}/${t.deepLink.key}`)}` }),
};

/** A multipart/form-data body (CRLF line breaks) and its content type. */
export const multipartBody = (fields: Record<string, unknown>, boundary = 'reliability-boundary') => ({
  contentType: `multipart/form-data; boundary=${boundary}`,
  body: Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${typeof value === 'string' ? value : JSON.stringify(value)}\r\n`)
      .join('') + `--${boundary}--\r\n`,
  ),
});
