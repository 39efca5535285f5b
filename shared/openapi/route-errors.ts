import type { ErrorCode } from '@shared/errors/error-code';
import type { RouteDef } from '@shared/routes/route-types';
import type { RouteSchemas } from './route-schemas';

/**
 * The `error.code` values a route's own code can answer, beyond what its shape gives it (see
 * `v1ErrorCodes`): the domain errors of its handler.
 */
const domainErrors: Record<string, ErrorCode[]> = {
  // The domain is not one of the workspace's, or not verified (invalid_request); the slug is used.
  'links-create': ['slug_taken'],
  // The key's deep-link app is gone; its domain is not verified (invalid_request); the slug is used.
  'deep-links-create': ['not_found', 'slug_taken'],
  'links-get': ['not_found'],
  'links-patch': ['not_found', 'slug_taken'],
  'links-archive': ['not_found'],
  'links-qr': ['not_found'],
  'deep-links-get': ['not_found'],
  'deep-links-patch': ['not_found', 'slug_taken'],
  'deep-links-archive': ['not_found'],
  'deep-links-qr': ['not_found'],
  'domains-get': ['not_found'],
  'analytics-link': ['not_found'],
  // A key not bound to an app (forbidden, already from the credential); the app is gone.
  'analytics-deep-link-app': ['not_found'],
  'client-resolve': ['not_found'],
  'client-click': ['not_found'],
  // A link reference (or the key's app) that is not this workspace's.
  'client-deferred-deep-link': ['not_found'],
  'client-first-open': ['not_found'],
  // Events naming links that do not exist.
  'client-events': ['not_found'],
};

/**
 * Every `error.code` a v1 route can answer with, from its shape: a credential (unauthorized,
 * forbidden, rate_limited; client_restriction_failed for publishable keys), a JSON body
 * (unsupported_media_type, invalid_json, invalid_request), a query or path to validate
 * (invalid_request), a list (invalid_cursor), an Idempotency-Key (idempotency_key_reused,
 * idempotency_request_in_progress, invalid_request for a key over 255 characters), analytics
 * (analytics_unavailable), plus its handler's domain errors; internal_error on every route.
 */
export const v1ErrorCodes = (route: RouteDef, schemas: RouteSchemas | undefined): ErrorCode[] => {
  const codes = new Set<ErrorCode>();
  // Keyed routes, and sign-in, which checks the key in its body.
  const credential = route.credential !== 'none' || route.authenticatesKey === true;
  if (credential) codes.add('unauthorized').add('forbidden');
  if (route.credential === 'publishable') codes.add('client_restriction_failed');
  if (schemas?.body) codes.add('unsupported_media_type').add('invalid_json').add('invalid_request');
  if (schemas?.query || schemas?.path) codes.add('invalid_request');
  if (schemas?.response?.list) codes.add('invalid_cursor');
  if (schemas?.idempotent)
    codes.add('idempotency_key_reused').add('idempotency_request_in_progress').add('invalid_request');
  for (const code of domainErrors[route.handler] ?? []) codes.add(code);
  if (credential) codes.add('rate_limited');
  if (route.grants.analytics) codes.add('analytics_unavailable');
  codes.add('internal_error');
  return [...codes];
};
