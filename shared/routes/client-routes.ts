import type { ClientClickResponse } from '@shared/attribution/client-click';
import type { ClientLinkPayload } from '@shared/attribution/client-link';
import {
  clientClickBodySchema,
  clientLinkReferenceSchema,
  customerEventsBodySchema,
  firstOpenBodySchema,
} from '@shared/attribution/client-schemas';
import type { CustomerEventResult } from '@shared/attribution/customer-events';
import type { DeferredDeepLinkResponse } from '@shared/attribution/deferred-deep-link';
import type { FirstOpenResponse } from '@shared/attribution/first-open';
import type { V1Route } from './typed-route';
import type { RouteDef } from './route-types';

/** Client attribution: publishable keys only; CORS for browser keys (docs/client-attribution.md). */
export const clientResolveRoute: V1Route<
  { body: typeof clientLinkReferenceSchema },
  { link: ClientLinkPayload; destinationUrl: string }
> = {
  request: { body: clientLinkReferenceSchema },
  handler: 'client-resolve',
  method: 'POST',
  path: '/v1/client/resolve',
  credential: 'publishable',
  api: 'service',
  grants: { table: 'read', reads: ['LINK#', 'SLUG#', 'HOST#'] },
  summary: 'Resolve a link reference to its client payload',
};

export const clientClickRoute: V1Route<{ body: typeof clientClickBodySchema }, ClientClickResponse> = {
  request: { body: clientClickBodySchema },
  handler: 'client-click',
  method: 'POST',
  path: '/v1/client/attribution/click',
  credential: 'publishable',
  api: 'service',
  // Reads the clicked link and the salts; writes its attribution record, never the link (counters
  // come from the event stream).
  grants: {
    table: 'readWrite',
    reads: ['LINK#', 'SLUG#', 'HOST#', 'SECRET'],
    writes: ['ATTR#', 'CLICKID#', 'FP#'],
    events: true,
  },
  summary: 'Record a client click and its attribution record',
};

export const clientDeferredDeepLinkRoute: V1Route<{ body: typeof firstOpenBodySchema }, DeferredDeepLinkResponse> = {
  request: { body: firstOpenBodySchema },
  handler: 'client-deferred-deep-link',
  method: 'POST',
  path: '/v1/client/deferred-deep-link',
  credential: 'publishable',
  api: 'service',
  // Claims a probabilistic match on its fingerprint entry (FP#) when an installId is given;
  // the fingerprint salt is created at provisioning (ensureSecrets), never here.
  grants: {
    table: 'readWrite',
    reads: ['ATTR#', 'CLICKID#', 'OPEN#', 'LINK#', 'SLUG#', 'HOST#', 'SECRET'],
    writes: ['FP#'],
  },
  summary: 'Find the deferred deep link of a fresh install (records nothing)',
};

export const clientFirstOpenRoute: V1Route<{ body: typeof firstOpenBodySchema }, FirstOpenResponse> = {
  request: { body: firstOpenBodySchema },
  handler: 'client-first-open',
  method: 'POST',
  path: '/v1/client/first-open',
  credential: 'publishable',
  api: 'service',
  grants: {
    table: 'readWrite',
    reads: ['ATTR#', 'CLICKID#', 'LINK#', 'SLUG#', 'HOST#', 'SECRET'],
    writes: ['OPEN#', 'FP#', 'OUTBOX#'],
    events: true,
  },
  summary: 'Record a first open or install, matched to a click',
};

export const clientEventsRoute: V1Route<
  { body: typeof customerEventsBodySchema },
  { accepted: CustomerEventResult[] }
> = {
  request: { body: customerEventsBodySchema },
  handler: 'client-events',
  method: 'POST',
  path: '/v1/client/events',
  credential: 'publishable',
  api: 'service',
  grants: {
    table: 'readWrite',
    reads: ['LINK#', 'SECRET', 'CONVERSIONS#'],
    writes: ['CEVT#', 'OUTBOX#'],
    events: true,
  },
  summary: 'Queue customer events (deduplicated by eventId)',
};

export const clientPreflightRoute: RouteDef = {
  handler: 'client-preflight',
  method: 'OPTIONS',
  path: '/v1/client/{proxy+}',
  credential: 'none',
  api: 'service',
  grants: { table: 'read', reads: ['ORIGIN#'] },
  summary: 'CORS preflight for browser publishable keys (origins from the origin index)',
};

export const clientRoutes: RouteDef[] = [
  clientResolveRoute,
  clientClickRoute,
  clientDeferredDeepLinkRoute,
  clientFirstOpenRoute,
  clientEventsRoute,
  clientPreflightRoute,
];
