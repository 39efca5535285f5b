import type { RouteDef } from './route-types';

/** The short-link edge (docs/edge.md): HTML and redirects on customer domains, no credential. */
const edge = (row: Omit<RouteDef, 'api' | 'credential'>): RouteDef => ({ ...row, api: 'edge', credential: 'none' });

/**
 * What a click on the edge reads: the slug's redirect record, the host and its workspace's
 * domain and app items (fallbacks, launch views), the salts (`SECRET`), a tracked click's
 * workspace conversion settings (`CONVERSIONS#`: its click-token secret, cached). Never
 * `APIKEY#` or `WEBHOOKS#` (signing secrets).
 */
const EDGE_LINK_READS = ['SLUG#', 'HOST#', 'WS#', 'SECRET', 'CONVERSIONS#'];

export const edgeRoutes: RouteDef[] = [
  edge({
    handler: 'edge-links',
    method: 'GET',
    path: '/{key}',
    // Reads the slug's redirect record, the host and its domain (fallbacks), the salts; writes a
    // deep-link tap's attribution record. Never a link: counters come from the event stream.
    grants: { table: 'readWrite', reads: EDGE_LINK_READS, writes: ['ATTR#', 'CLICKID#', 'FP#'], events: true },
    summary: 'A click on a short or deep link: redirect, launch view, password form, preview, 404/410',
  }),
  edge({
    handler: 'edge-links',
    method: 'HEAD',
    path: '/{key}',
    grants: { table: 'readWrite', reads: EDGE_LINK_READS, writes: ['ATTR#', 'CLICKID#', 'FP#'], events: true },
    summary: 'HEAD of a link: the GET answer without body, counted as a bot click',
  }),
  edge({
    handler: 'edge-links',
    method: 'POST',
    path: '/{key}',
    // Password attempt counters, and the tap's attribution record once unlocked.
    grants: {
      table: 'readWrite',
      reads: EDGE_LINK_READS,
      writes: ['PWTRY#', 'ATTR#', 'CLICKID#', 'FP#'],
      events: true,
    },
    summary: 'Password form answer: the link on the right password, 401 on a wrong one, 429 when tried too often',
  }),
  edge({
    handler: 'edge-launch-events',
    method: 'POST',
    path: '/api/launch-view-events',
    grants: { table: 'read', reads: ['SLUG#', 'HOST#', 'SECRET'], events: true },
    summary: 'Launch view beacons: auto-open attempt, primary and secondary clicks',
  }),
  edge({
    handler: 'edge-well-known',
    method: 'GET',
    path: '/.well-known/apple-app-site-association',
    grants: { table: 'read', reads: ['HOST#', 'WS#'] },
    summary: "iOS universal links file of a deep-link app's domain",
  }),
  edge({
    handler: 'edge-well-known',
    method: 'GET',
    path: '/.well-known/assetlinks.json',
    grants: { table: 'read', reads: ['HOST#', 'WS#'] },
    summary: "Android App Links file of a deep-link app's domain",
  }),
  edge({
    handler: 'edge-links',
    method: 'ANY',
    path: '$default',
    grants: { table: 'read', reads: EDGE_LINK_READS },
    summary: "Any other edge path: the domain's not-found answer (unknown host: plain 404)",
  }),
];
