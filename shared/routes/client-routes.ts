import type { RouteDef } from './route-types';

/** Client attribution: publishable keys only; CORS for browser keys (docs/client-attribution.md). */
export const clientRoutes: RouteDef[] = [
  {
    handler: 'client-resolve',
    method: 'POST',
    path: '/v1/client/resolve',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'read' },
    summary: 'Resolve a link reference to its client payload',
  },
  {
    handler: 'client-click',
    method: 'POST',
    path: '/v1/client/attribution/click',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'readWrite', writes: ['LINK#', 'ATTR#', 'CLICKID#', 'FP#'], events: true },
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
    grants: { table: 'readWrite', writes: ['FP#'] },
    summary: 'Find the deferred deep link of a fresh install (records nothing)',
  },
  {
    handler: 'client-first-open',
    method: 'POST',
    path: '/v1/client/first-open',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'readWrite', writes: ['OPEN#', 'FP#', 'OUTBOX#'], events: true },
    summary: 'Record a first open or install, matched to a click',
  },
  {
    handler: 'client-events',
    method: 'POST',
    path: '/v1/client/events',
    credential: 'publishable',
    api: 'service',
    grants: { table: 'readWrite', writes: ['CEVT#', 'OUTBOX#'], events: true },
    summary: 'Queue customer events (deduplicated by eventId)',
  },
  {
    handler: 'client-preflight',
    method: 'OPTIONS',
    path: '/v1/client/{proxy+}',
    credential: 'none',
    api: 'service',
    grants: { table: 'read' },
    summary: 'CORS preflight for browser publishable keys (origins from the origin index)',
  },
];
