import type { RouteDef } from './route-types';

/** Client attribution: publishable keys only; CORS for browser keys (docs/client-attribution.md). */
export const clientRoutes: RouteDef[] = [
  {
    handler: 'client-resolve',
    method: 'POST',
    path: '/v1/client/resolve',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'read', reads: ['LINK#', 'SLUG#', 'HOST#'] },
    summary: 'Resolve a link reference to its client payload',
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    handler: 'client-events',
    method: 'POST',
    path: '/v1/client/events',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'readWrite', reads: ['LINK#', 'SECRET'], writes: ['CEVT#', 'OUTBOX#'], events: true },
    summary: 'Queue customer events (deduplicated by eventId)',
  },
  {
    handler: 'client-preflight',
    method: 'OPTIONS',
    path: '/v1/client/{proxy+}',
    credential: 'none',
    api: 'service',
    grants: { table: 'read', reads: ['ORIGIN#'] },
    summary: 'CORS preflight for browser publishable keys (origins from the origin index)',
  },
];
