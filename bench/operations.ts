import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import type { InvokeRequest } from './lambda-invoke';
import type { World } from './world';

/** One measured operation: which bundle, and the request of its n-th run. */
export interface Operation {
  name: string;
  handler: string;
  request: (world: World, n: number) => InvokeRequest;
  expect: number[];
  /** Events the operation sends to the event sink (Firehose when deployed), per run. */
  events: number;
}

/** What CloudFront adds to every origin request: the origin-verify secret the local stack set (the edge refuses a request without it). */
const throughFrontDoor = (): Record<string, string> => {
  const secret = (process.env[ORIGIN_VERIFY_VALUES_ENV] ?? '').split(',')[0];
  return secret ? { [ORIGIN_VERIFY_HEADER]: secret } : {};
};
const server = (w: World) => ({ 'api-key': w.tenant.serverKey });
const client = (w: World) => ({
  'x-publishable-key': w.tenant.publishableKeys.ios.key,
  'x-ios-bundle-id': w.tenant.publishableKeys.ios.bundleId,
});
const run = `${process.pid}-${Date.now().toString(36)}`;

export const operations: Record<string, Operation> = {
  redirect: {
    name: 'redirect (GET /{key})',
    handler: 'edge-links',
    request: (w) => ({
      method: 'GET',
      path: `/${w.link.key}`,
      headers: { host: w.link.domain, ...throughFrontDoor() },
      pathParameters: { key: w.link.key },
    }),
    expect: [302],
    events: 1,
  },
  get: {
    name: 'GET link',
    handler: 'links-get',
    request: (w) => ({
      method: 'GET',
      path: `/v1/links/${w.link.id}`,
      headers: server(w),
      pathParameters: { linkId: w.link.id },
    }),
    expect: [200],
    events: 0,
  },
  create: {
    name: 'POST link',
    handler: 'links-create',
    request: (w) => ({
      method: 'POST',
      path: '/v1/links',
      headers: server(w),
      json: { url: 'https://example.com/new', domain: w.tenant.domain },
    }),
    expect: [201],
    events: 0,
  },
  createIdempotent: {
    name: 'POST link + Idempotency-Key',
    handler: 'links-create',
    request: (w, n) => ({
      method: 'POST',
      path: '/v1/links',
      headers: { ...server(w), 'idempotency-key': `bench-${run}-${n}` },
      json: { url: 'https://example.com/new', domain: w.tenant.domain },
    }),
    expect: [201],
    events: 0,
  },
  click: {
    name: 'client click',
    handler: 'client-click',
    request: (w) => ({
      method: 'POST',
      path: '/v1/client/attribution/click',
      headers: client(w),
      json: { linkId: w.link.id },
    }),
    expect: [200, 201],
    events: 1,
  },
  patch: {
    name: 'PATCH link',
    handler: 'links-patch',
    request: (w, n) => ({
      method: 'PATCH',
      path: `/v1/links/${w.link.id}`,
      headers: server(w),
      pathParameters: { linkId: w.link.id },
      json: { title: `Bench link ${n}` },
    }),
    expect: [200],
    events: 0,
  },
  list: {
    name: 'list page (25)',
    handler: 'links-list',
    request: (w) => ({ method: 'GET', path: '/v1/links', headers: server(w), query: { limit: '25' } }),
    expect: [200],
    events: 0,
  },
  firstOpen: {
    name: 'first-open',
    handler: 'client-first-open',
    request: (w, n) => ({
      method: 'POST',
      path: '/v1/client/first-open',
      headers: client(w),
      json: { linkId: w.deepLink.id, installId: `install-${run}-${n}` },
    }),
    expect: [200, 201],
    events: 1,
  },
  bulk100: {
    name: 'bulk create of 100 + Idempotency-Key',
    handler: 'links-bulk-create',
    request: (w, n) => ({
      method: 'POST',
      path: '/v1/links/bulk',
      headers: { ...server(w), 'idempotency-key': `bench-bulk-${run}-${n}` },
      json: {
        links: Array.from({ length: 100 }, (_, i) => ({
          url: `https://example.com/bulk/${n}/${i}`,
          domain: w.tenant.domain,
          tags: ['bulk'],
        })),
      },
    }),
    expect: [200],
    events: 0,
  },
  events50: {
    name: 'events batch of 50',
    handler: 'client-events',
    request: (w, n) => ({
      method: 'POST',
      path: '/v1/client/events',
      headers: client(w),
      json: {
        events: Array.from({ length: 50 }, (_, i) => ({
          name: 'purchase',
          eventId: `evt-${run}-${n}-${i}`,
          linkId: w.link.id,
          properties: { amount: i, currency: 'EUR' },
        })),
      },
    }),
    expect: [200, 201, 202],
    events: 50,
  },
};
