import type { $ZodObject, $ZodType } from 'zod/v4/core';
import { analyticsEventsQuerySchema, analyticsQuerySchema } from '@shared/analytics/query/analytics-schemas';
import {
  clientClickBodySchema,
  clientLinkReferenceSchema,
  customerEventsBodySchema,
  firstOpenBodySchema,
} from '@shared/attribution/client-schemas';
import { auditEntryResourceSchema, listAuditLogQuerySchema } from '@shared/audit/audit-schemas';
import { createSessionBodySchema, sessionResourceSchema } from '@shared/auth/session-schemas';
import { domainIdPathSchema } from '@shared/schemas/domain-schemas';
import {
  createDeepLinkBodySchema,
  createLinkBodySchema,
  linkIdPathSchema,
  patchLinkBodySchema,
} from '@shared/schemas/link-schemas';
import { listDomainsQuerySchema, listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { bulkCreateLinksDocSchema, bulkResultsSchema } from '@shared/schemas/bulk-doc-schemas';
import { qrQuerySchema } from '@shared/schemas/qr-schemas';
import {
  analyticsDataSchema,
  clientClickResponseSchema,
  clientResolveResponseSchema,
  customerEventsResponseSchema,
  deepLinkAppAnalyticsDataSchema,
  deferredDeepLinkResponseSchema,
  domainResourceSchema,
  firstOpenResponseSchema,
  linkResourceSchema,
  rawAnalyticsEventSchema,
} from '@shared/schemas/resource-schemas';

/** What the OpenAPI document says about one route: the very schemas its handler validates with. */
export interface RouteSchemas {
  /** Success status. */
  status: number;
  /**
   * The request body. `oneOfRequired`: two alias fields of which the body needs one (the zod
   * schema refines it; JSON Schema says it as `allOf: [{anyOf: [...]}]`, which generators type).
   */
  body?: { id: string; schema: $ZodType; oneOfRequired?: [string, string] };
  query?: { id: string; schema: $ZodObject };
  path?: $ZodObject;
  /** `data` of the success envelope; `list` makes it an array with `pagination`. */
  response?: { id: string; schema: $ZodType; list?: boolean };
  /** Accepts `Idempotency-Key`. */
  idempotent?: boolean;
  /** A non-JSON success body (QR images): its media types. */
  binary?: string[];
  description?: string;
}

const link = { id: 'Link', schema: linkResourceSchema };
const linkList = { ...link, list: true };
const domain = { id: 'Domain', schema: domainResourceSchema };
const linkQuery = { id: 'LinkListQuery', schema: listLinksQuerySchema };
const patchBody = { id: 'LinkPatchRequest', schema: patchLinkBodySchema };
const qr: RouteSchemas = {
  status: 200,
  path: linkIdPathSchema,
  query: { id: 'QrQuery', schema: qrQuerySchema },
  binary: ['image/svg+xml', 'image/png'],
  description:
    "The QR code of the link's shortLink: SVG (default) or PNG (format=png), size 64-2048 px (default 512), margin 0-16 modules (default 4), " +
    'ecc L/M/Q/H (default M), color and background #rrggbb. Errors use the v1 JSON envelope.',
};

/**
 * Handler name -> schemas. A route of the route table without an entry here still appears in
 * the document, with its summary and a generic description (features add their entries here).
 */
export const routeSchemas: Record<string, RouteSchemas> = {
  'links-list': { status: 200, query: linkQuery, response: linkList },
  'links-create': {
    status: 201,
    body: { id: 'LinkCreateRequest', schema: createLinkBodySchema, oneOfRequired: ['url', 'destinationUrl'] },
    response: link,
    idempotent: true,
  },
  'links-bulk-create': {
    status: 200,
    body: { id: 'LinkBulkCreateRequest', schema: bulkCreateLinksDocSchema },
    response: { id: 'LinkBulkResults', schema: bulkResultsSchema },
    idempotent: true,
    description:
      'Creates 1 to 100 short links, each item exactly a POST /v1/links body, independently: data has one result per item in request order ' +
      '(success with a compact link, or the error the single create would give). Two items asking for the same domain + key: the earlier wins. ' +
      'Idempotency-Key covers the whole request.',
  },
  'links-get': { status: 200, path: linkIdPathSchema, response: link },
  'links-qr': qr,
  'deep-links-qr': qr,
  'links-patch': { status: 200, path: linkIdPathSchema, body: patchBody, response: link },
  'links-archive': {
    status: 200,
    path: linkIdPathSchema,
    response: link,
    description: 'Archives the link and answers it; archived links keep their slug and analytics and stop redirecting.',
  },
  'deep-links-list': { status: 200, query: linkQuery, response: linkList },
  'deep-links-create': {
    status: 201,
    body: { id: 'DeepLinkCreateRequest', schema: createDeepLinkBodySchema },
    response: link,
    idempotent: true,
  },
  'deep-links-get': { status: 200, path: linkIdPathSchema, response: link },
  'deep-links-patch': { status: 200, path: linkIdPathSchema, body: patchBody, response: link },
  'deep-links-archive': { status: 200, path: linkIdPathSchema, response: link },
  'domains-list': {
    status: 200,
    query: { id: 'DomainListQuery', schema: listDomainsQuerySchema },
    response: { ...domain, list: true },
  },
  'domains-get': { status: 200, path: domainIdPathSchema, response: domain },
  'audit-log-list': {
    status: 200,
    query: { id: 'AuditLogQuery', schema: listAuditLogQuerySchema },
    response: { id: 'AuditEntry', schema: auditEntryResourceSchema, list: true },
    description:
      'One entry per change made through the API, newest first, in the same transaction as the change. Filters match, they never look up: ' +
      "an unknown id, or another workspace's, gives an empty page. Entries are kept 400 days.",
  },
  'client-resolve': {
    status: 200,
    response: { id: 'ClientResolveResponse', schema: clientResolveResponseSchema },
    body: { id: 'ClientLinkReference', schema: clientLinkReferenceSchema },
    description: 'Resolves a link reference (linkId; else shortLink/url; else domain+key/slug) to a ClientLinkPayload.',
  },
  'client-click': {
    status: 201,
    response: { id: 'ClientClickResponse', schema: clientClickResponseSchema },
    body: { id: 'ClientClickRequest', schema: clientClickBodySchema },
    description: 'Records a click and an attribution record valid for 7 days.',
  },
  'client-deferred-deep-link': {
    status: 200,
    response: { id: 'DeferredDeepLinkResponse', schema: deferredDeepLinkResponseSchema },
    body: { id: 'FirstOpenRequest', schema: firstOpenBodySchema },
    description:
      'Finds the deferred deep link for this device (deterministic, then probabilistic matching); records nothing.',
  },
  'client-first-open': {
    status: 201,
    response: { id: 'FirstOpenResponse', schema: firstOpenResponseSchema },
    body: { id: 'FirstOpenRequest', schema: firstOpenBodySchema },
    description: 'Records first_open or install once per installId, with its attribution match.',
  },
  'client-events': {
    status: 202,
    response: { id: 'CustomerEventsResponse', schema: customerEventsResponseSchema },
    body: { id: 'CustomerEventsRequest', schema: customerEventsBodySchema },
    description:
      'Queues 1 to 50 customer events; each is queued or duplicate (by eventId), or rejected when its clickToken does not verify (the others are still queued). 400 invalid_request when every event of the request is rejected.',
  },
  'client-preflight': {
    status: 204,
    description: 'CORS preflight for browser publishable keys: allowed only for origins a browser key lists.',
  },
  'analytics-link': {
    status: 200,
    response: { id: 'AnalyticsData', schema: analyticsDataSchema },
    path: linkIdPathSchema,
    query: { id: 'AnalyticsQuery', schema: analyticsQuerySchema },
    description:
      'AnalyticsData of one link (short or deep). 503 analytics_unavailable when the analytics backend is not available.',
  },
  'analytics-deep-link-app': {
    status: 200,
    response: { id: 'DeepLinkAppAnalyticsData', schema: deepLinkAppAnalyticsDataSchema },
    query: { id: 'AnalyticsQuery', schema: analyticsQuerySchema },
    description:
      "DeepLinkAppAnalyticsData of the app key's app. 503 analytics_unavailable when the analytics backend is not available.",
  },
  'analytics-events': {
    status: 200,
    response: { id: 'RawAnalyticsEvent', schema: rawAnalyticsEventSchema, list: true },
    query: { id: 'AnalyticsEventsQuery', schema: analyticsEventsQuerySchema },
    description:
      'Raw events, newest first, paged with a signed cursor. 503 analytics_unavailable when the analytics backend is not available.',
  },
  'sessions-create': {
    status: 201,
    body: { id: 'SessionCreateRequest', schema: createSessionBodySchema },
    response: { id: 'Session', schema: sessionResourceSchema },
    description:
      'Console sign-in: exchanges a server key (in the body; no api-key header) for a session. The session travels in the cookie ' +
      "`__Host-session` (HttpOnly, Secure, SameSite=Strict, Path=/, Max-Age 12 h); the body names its workspace, the key's scopes " +
      'and when it expires. With that cookie and the header `x-requested-with: console` (and no api-key header), every server-key ' +
      'route answers as the key would; the cookie without the header is 401 (details.reason "console_header_required"), and a ' +
      "session that ended (signed out, 12 h old, or its key revoked, expired or past a rotation's overlap) is 401 (details.reason " +
      '"session_ended"). A wrong key is 401 with no cookie and counts against the failed-key limit; a key of another kind is 403.',
  },
  'sessions-delete': {
    status: 204,
    description:
      'Console sign-out: deletes the session the `__Host-session` cookie names and clears the cookie (204 even without one).',
  },
  'openapi-get': {
    status: 200,
    description: 'This document (OpenAPI 3.1), generated from the route table and the zod schemas.',
  },
};
