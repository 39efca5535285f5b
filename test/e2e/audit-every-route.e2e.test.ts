/**
 * Every mutating route of the route table (POST, PUT, PATCH, DELETE), walked: each audited route
 * writes exactly one audit entry per change, with the key that made it, the action, the resource,
 * the request id, the source address and the user agent; each refused request (400, 403, 404,
 * 409, and the legacy routes' refusals) writes none. A mutating route with neither a case below nor a stated reason it is not
 * audited fails the test, so a new route cannot be added without its audit entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import type { AuditEntryResource } from '@shared/audit/audit-entry';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { createDeepLink } from '@shared/links/create-deep-link';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { routeTable } from '@shared/routes/route-table';
import { http, type HttpResponse } from '@test/support/http-client';
import { postForm } from '@test/support/legacy-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'ANY']);

/**
 * Mutating routes that write no audit entry, and why. The log records changes to a workspace's
 * links, domains, keys, webhooks, limits and data; traffic (visits, clicks, app opens, customer
 * events) is what those links measure, recorded in the event lake, not a change of the workspace.
 */
const NOT_AUDITED: Record<string, string> = {
  'POST /v1/client/resolve': 'resolves a link for an app: a read that takes a body',
  'POST /v1/client/attribution/click': 'records a click (traffic)',
  'POST /v1/client/deferred-deep-link': 'matches an app install to a click (traffic)',
  'POST /v1/client/first-open': 'records an app open (traffic)',
  'POST /v1/client/events': "records the app's customer events (traffic)",
  'POST /{key}': "a visitor's password for a protected link: a redirect",
  'POST /api/launch-view-events': 'launch page beacons (traffic)',
  'ANY $default': 'the not-found answer of unknown paths (service API and edge)',
  'POST /v1/sessions':
    "a console sign-in: the key's use, not a change of the workspace (actions under it are logged with the key as actor)",
  'DELETE /v1/sessions/current': 'a console sign-out: ends a session, changes nothing of the workspace',
};

let t: TestStack;
let w: BootstrapResult;
let writer: { key: string; id: string };
/** A key of the workspace without the scopes the changes need: 403. */
let readOnly: string;
type Actor = { type: 'api_key'; keyId: string; name: string | null };
let actors: { server: Actor; mobile: Actor; app: Actor };

const actorOf = async (plain: string): Promise<Actor> => {
  const record = (await apiKeyRepository.findByHash(hashApiKey(plain)))!;
  return { type: 'api_key', keyId: publicKeyIdOf(record), name: record.name ?? null };
};

beforeAll(async () => {
  t = await startTestStack();
  w = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Audit walk' });
  const issued = await issueKey({ workspaceId: w.workspaceId, kind: 'server', name: 'route walker', scopes: ['all'] });
  writer = { key: issued.key, id: issued.id };
  readOnly = (await issueKey({ workspaceId: w.workspaceId, kind: 'server', name: 'reader', scopes: ['read'] })).key;
  actors = {
    server: { type: 'api_key', keyId: writer.id, name: 'route walker' },
    mobile: await actorOf(w.mobileKey),
    app: await actorOf(w.deepLinkApp.appKey),
  };
});
afterAll(async () => t.stop());

const USER_AGENT = 'audit-walk/1.0';
let requests = 0;
const nextRequestId = () => `req-walk-${++requests}`;

/** A v1 request with the writer's key (or `key`), a request id and a user agent. */
const v1 = (method: string, path: string, requestId: string, json?: unknown, key = writer.key) =>
  http(t.baseUrl, method, path, {
    headers: { 'api-key': key, 'x-request-id': requestId, 'user-agent': USER_AGENT },
    json,
  });
const legacy = (path: string, fields: Record<string, string>, requestId: string, key: string) =>
  postForm(t.baseUrl, path, fields, { 'api-key': key, 'x-request-id': requestId, 'user-agent': USER_AGENT });

const shortLink = () =>
  createShortLink(w.workspaceId, { url: 'https://example.com/walk', domain: w.domain }, TEST_ORIGIN);
const deepLink = () => createDeepLink(w.workspaceId, { deepLinkAppId: w.deepLinkApp.id }, TEST_ORIGIN);

interface Change {
  response: HttpResponse;
  resource: { type: string; id: string };
  /** Every resource the entry names, when more than `resource`. */
  resourceIds?: string[];
}

interface AuditCase {
  action: string;
  actor: keyof typeof actors;
  /** Makes the change (after anything it needs exists). */
  change: (requestId: string) => Promise<Change>;
  /** Requests the route refuses: each must be refused (isRefusal) and write nothing. */
  refused: Array<(requestId: string) => Promise<HttpResponse>>;
}

const CASES: Record<string, AuditCase> = {
  'POST /v1/links': {
    action: 'link.created',
    actor: 'server',
    change: async (id) => {
      const response = await v1('POST', '/v1/links', id, { domain: w.domain, url: 'https://example.com/walk-create' });
      return { response, resource: { type: 'link', id: response.body.data.id as string } };
    },
    refused: [
      (id) => v1('POST', '/v1/links', id, { domain: w.domain, url: 'not a url' }),
      (id) => v1('POST', '/v1/links', id, { domain: w.domain, url: 'https://example.com/x' }, readOnly),
      async (id) => {
        const taken = await shortLink();
        return v1('POST', '/v1/links', id, { domain: w.domain, url: 'https://example.com/x', key: taken.key });
      },
    ],
  },
  'POST /v1/links/bulk': {
    action: 'link.created',
    actor: 'server',
    change: async (id) => {
      const response = await v1('POST', '/v1/links/bulk', id, {
        links: [
          { domain: w.domain, url: 'https://example.com/walk-bulk-1' },
          { domain: w.domain, url: 'https://example.com/walk-bulk-2' },
        ],
      });
      const ids = (response.body.data as Array<{ data: { id: string } }>).map((r) => r.data.id);
      return { response, resource: { type: 'link', id: ids[0]! }, resourceIds: ids };
    },
    refused: [
      (id) => v1('POST', '/v1/links/bulk', id, { links: 'none' }),
      (id) => v1('POST', '/v1/links/bulk', id, { links: [{ domain: w.domain, url: 'https://e.com' }] }, readOnly),
    ],
  },
  'PATCH /v1/links/{linkId}': {
    action: 'link.updated',
    actor: 'server',
    change: async (id) => {
      const link = await shortLink();
      const response = await v1('PATCH', `/v1/links/${link.id}`, id, { title: 'walked' });
      return { response, resource: { type: 'link', id: link.id } };
    },
    refused: [
      async (id) => v1('PATCH', `/v1/links/${(await shortLink()).id}`, id, { url: 'not a url' }),
      async (id) => v1('PATCH', `/v1/links/${(await shortLink()).id}`, id, { title: 'x' }, readOnly),
      (id) => v1('PATCH', '/v1/links/lnk_doesnotexist', id, { title: 'x' }),
    ],
  },
  'DELETE /v1/links/{linkId}': {
    action: 'link.archived',
    actor: 'server',
    change: async (id) => {
      const link = await shortLink();
      return { response: await v1('DELETE', `/v1/links/${link.id}`, id), resource: { type: 'link', id: link.id } };
    },
    refused: [
      async (id) => v1('DELETE', `/v1/links/${(await shortLink()).id}`, id, undefined, readOnly),
      (id) => v1('DELETE', '/v1/links/lnk_doesnotexist', id),
    ],
  },
  'POST /v1/deep-links': {
    action: 'deep_link.created',
    actor: 'server',
    change: async (id) => {
      const response = await v1('POST', '/v1/deep-links', id, { deepLinkAppId: w.deepLinkApp.id });
      return { response, resource: { type: 'deep_link', id: response.body.data.id as string } };
    },
    refused: [
      (id) => v1('POST', '/v1/deep-links', id, { deepLinkAppId: 42 }),
      (id) => v1('POST', '/v1/deep-links', id, { deepLinkAppId: w.deepLinkApp.id }, readOnly),
    ],
  },
  'PATCH /v1/deep-links/{linkId}': {
    action: 'deep_link.updated',
    actor: 'server',
    change: async (id) => {
      const link = await deepLink();
      const response = await v1('PATCH', `/v1/deep-links/${link.id}`, id, { comments: 'walked' });
      return { response, resource: { type: 'deep_link', id: link.id } };
    },
    refused: [
      async (id) => v1('PATCH', `/v1/deep-links/${(await deepLink()).id}`, id, { comments: 'x' }, readOnly),
      (id) => v1('PATCH', '/v1/deep-links/lnk_doesnotexist', id, { comments: 'x' }),
    ],
  },
  'DELETE /v1/deep-links/{linkId}': {
    action: 'deep_link.archived',
    actor: 'server',
    change: async (id) => {
      const link = await deepLink();
      const response = await v1('DELETE', `/v1/deep-links/${link.id}`, id);
      return { response, resource: { type: 'deep_link', id: link.id } };
    },
    refused: [
      async (id) => v1('DELETE', `/v1/deep-links/${(await deepLink()).id}`, id, undefined, readOnly),
      (id) => v1('DELETE', '/v1/deep-links/lnk_doesnotexist', id),
    ],
  },
  'POST /api/mobile/link/create': {
    action: 'link.created',
    actor: 'mobile',
    change: async (id) => {
      const response = await legacy(
        '/api/mobile/link/create',
        { url: 'https://example.com/walk-legacy' },
        id,
        w.mobileKey,
      );
      // The legacy answer names the link by its short link.
      const key = new URL(response.body.data.shortLink as string).pathname.slice(1);
      const link = (await linkRepository.findBySlug(w.domain, key))!;
      return { response, resource: { type: 'link', id: link.id } };
    },
    refused: [
      (id) => legacy('/api/mobile/link/create', { url: 'not a url' }, id, w.mobileKey),
      (id) => legacy('/api/mobile/link/create', { url: 'https://example.com/x' }, id, w.deepLinkApp.appKey),
      async (id) =>
        legacy(
          '/api/mobile/link/create',
          { url: 'https://example.com/x', slug: (await shortLink()).key },
          id,
          w.mobileKey,
        ),
    ],
  },
  'POST /api/mobile/deeplink': {
    action: 'deep_link.created',
    actor: 'app',
    change: async (id) => {
      const response = await legacy('/api/mobile/deeplink', {}, id, w.deepLinkApp.appKey);
      return { response, resource: { type: 'deep_link', id: response.body.data.id as string } };
    },
    refused: [
      (id) => legacy('/api/mobile/deeplink', {}, id, w.mobileKey),
      async (id) => legacy('/api/mobile/deeplink', { slug: (await deepLink()).key }, id, w.deepLinkApp.appKey),
    ],
  },
};

/**
 * A refusal: 4xx; on the legacy routes also their contract's 200 with `success: false` (a taken
 * slug answers so there).
 */
const isRefusal = (res: HttpResponse) =>
  (res.status >= 400 && res.status < 500) ||
  (res.status === 200 && (res.body as { success?: unknown } | null)?.success === false);

const routeId = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const mutating = [...new Set(routeTable.filter((r) => MUTATING.has(r.method)).map(routeId))];

/** The workspace's whole log, newest first. */
const log = async (): Promise<AuditEntryResource[]> => {
  const entries: AuditEntryResource[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditLog(w.workspaceId, { limit: 100, cursor });
    entries.push(...page.data);
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return entries;
};

/** Runs `step`, then returns the entries it added (newest first), checking it removed none. */
const entriesOf = async <T>(step: () => Promise<T>): Promise<{ result: T; added: AuditEntryResource[] }> => {
  const before = await log();
  const result = await step();
  const after = await log();
  expect(after.slice(after.length - before.length)).toEqual(before);
  return { result, added: after.slice(0, after.length - before.length) };
};

describe('every mutating route writes exactly one audit entry per change, none when refused', () => {
  it('each mutating route of the table is audited or says why not; each case names a route of the table', () => {
    for (const route of mutating)
      expect(
        route in CASES || route in NOT_AUDITED,
        `${route}: audit it (and add its case here) or say here why it is not audited`,
      ).toBe(true);
    for (const route of [...Object.keys(CASES), ...Object.keys(NOT_AUDITED)]) expect(mutating).toContain(route);
    expect(Object.keys(CASES).filter((r) => r in NOT_AUDITED)).toEqual([]);
  });

  it.each(mutating.filter((route) => route in CASES))('%s', async (route) => {
    const audited = CASES[route]!;
    for (const [i, refuse] of audited.refused.entries()) {
      const requestId = nextRequestId();
      // What the refused request needs (a link, a taken slug) is made before: its entry is not the request's.
      const { result, added } = await entriesOf(() => refuse(requestId));
      expect(isRefusal(result), `${route} refusal ${i}: ${result.status} ${result.text.slice(0, 200)}`).toBe(true);
      expect(added.filter((e) => e.requestId === requestId)).toEqual([]);
      expect(
        added.every((e) => e.actor.type === 'operator'),
        `${route} refusal ${i} wrote an entry`,
      ).toBe(true);
    }

    const requestId = nextRequestId();
    const { result: change, added } = await entriesOf(() => audited.change(requestId));
    expect(change.response.status, change.response.text.slice(0, 300)).toBeLessThan(300);
    const ofRequest = added.filter((e) => e.requestId === requestId);
    expect(ofRequest, route).toHaveLength(1);
    // Anything else added was made by the case's own setup (an operator origin), not by the request.
    expect(added.filter((e) => e.requestId !== requestId).every((e) => e.actor.type === 'operator')).toBe(true);
    const entry = ofRequest[0]!;
    expect(entry).toMatchObject({
      actor: actors[audited.actor],
      action: audited.action,
      resource: change.resource,
      resourceIds: change.resourceIds ?? [change.resource.id],
      requestId,
      // The local stack's service API sees the test's loopback connection.
      ip: '127.0.0.1',
      userAgent: USER_AGENT,
    });
  });
});
