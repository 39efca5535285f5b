import type { RouteDef } from './route-types';

/** The short-link edge (docs/edge.md): HTML and redirects on customer domains, no credential. */
const edge = (row: Omit<RouteDef, 'api' | 'credential'>): RouteDef => ({ ...row, api: 'edge', credential: 'none' });

export const edgeRoutes: RouteDef[] = [
  edge({
    handler: 'edge-links',
    method: 'GET',
    path: '/{key}',
    // Click counters, and a deep-link tap's attribution record (the visitor salt is created at provisioning).
    grants: { table: 'readWrite', writes: ['LINK#', 'ATTR#', 'CLICKID#', 'FP#'], events: true },
    summary: 'A click on a short or deep link: redirect, launch view, password form, preview, 404/410',
  }),
  edge({
    handler: 'edge-links',
    method: 'HEAD',
    path: '/{key}',
    grants: { table: 'readWrite', writes: ['LINK#', 'ATTR#', 'CLICKID#', 'FP#'], events: true },
    summary: 'HEAD of a link: the GET answer without body, counted as a bot click',
  }),
  edge({
    handler: 'edge-links',
    method: 'POST',
    path: '/{key}',
    // Password attempt counters, click counters, and the tap's attribution record once unlocked.
    grants: { table: 'readWrite', writes: ['LINK#', 'PWTRY#', 'ATTR#', 'CLICKID#', 'FP#'], events: true },
    summary: 'Password form answer: the link on the right password, 401 on a wrong one, 429 when tried too often',
  }),
  edge({
    handler: 'edge-launch-events',
    method: 'POST',
    path: '/api/launch-view-events',
    grants: { table: 'read', events: true },
    summary: 'Launch view beacons: auto-open attempt, primary and secondary clicks',
  }),
  edge({
    handler: 'edge-well-known',
    method: 'GET',
    path: '/.well-known/apple-app-site-association',
    grants: { table: 'read' },
    summary: "iOS universal links file of a deep-link app's domain",
  }),
  edge({
    handler: 'edge-well-known',
    method: 'GET',
    path: '/.well-known/assetlinks.json',
    grants: { table: 'read' },
    summary: "Android App Links file of a deep-link app's domain",
  }),
  edge({
    handler: 'edge-links',
    method: 'ANY',
    path: '$default',
    grants: { table: 'read' },
    summary: "Any other edge path: the domain's not-found answer (unknown host: plain 404)",
  }),
];
