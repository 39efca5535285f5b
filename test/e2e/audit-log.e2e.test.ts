import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { http } from '@test/support/http-client';
import { postForm } from '@test/support/legacy-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
/** A workspace of its own, so the log below holds exactly what this file does. */
let w: BootstrapResult;
let writer: { key: string; id: string };
let reader: string;

beforeAll(async () => {
  t = await startTestStack();
  w = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl, name: 'Audit' });
  const issued = await issueKey({ workspaceId: w.workspaceId, kind: 'server', name: 'audit writer', scopes: ['all'] });
  writer = { key: issued.key, id: issued.id };
  reader = (await issueKey({ workspaceId: w.workspaceId, kind: 'server', name: 'audit reader', scopes: ['read'] })).key;
});
afterAll(async () => t.stop());

interface Entry {
  id: string;
  occurredAt: string;
  actor: { type: string; keyId?: string; name: string | null };
  action: string;
  resource: { type: string; id: string };
  resourceIds: string[];
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  changedFields: string[];
}

const send = (method: string, path: string, requestId: string, json?: unknown) =>
  http(t.baseUrl, method, path, {
    headers: { 'api-key': writer.key, 'x-request-id': requestId, 'user-agent': 'audit-e2e/1.0' },
    json,
  });
const auditLog = (query = '', key = reader) =>
  http(t.baseUrl, 'GET', `/v1/audit-log${query}`, { headers: { 'api-key': key } });

/** Every entry of the workspace matching `query`, walking the pages of size `limit`. */
const walk = async (query: string, limit: number): Promise<Entry[]> => {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const res = await auditLog(`?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    entries.push(...(res.body.data as Entry[]));
    cursor = res.body.pagination.nextCursor as string | null;
    expect(res.body.pagination.hasMore).toBe(cursor !== null);
    if (!cursor) return entries;
  }
  throw new Error('more than 50 pages');
};

describe('audit log of link changes', () => {
  let linkId: string;
  let deepLinkId: string;

  beforeAll(async () => {
    const created = await send('POST', '/v1/links', 'req-audit-create', {
      domain: w.domain,
      url: 'https://example.com/audit',
      key: 'audit-one',
    });
    expect(created.status, created.text).toBe(201);
    linkId = created.body.data.id as string;
    const patched = await send('PATCH', `/v1/links/${linkId}`, 'req-audit-patch', {
      url: 'https://example.com/audit-2',
      title: 'Audited',
      password: 'a secret never logged',
    });
    expect(patched.status, patched.text).toBe(200);
    const archived = await send('DELETE', `/v1/links/${linkId}`, 'req-audit-archive');
    expect(archived.status, archived.text).toBe(200);
    // Archiving an archived link changes nothing: no entry.
    expect((await send('DELETE', `/v1/links/${linkId}`, 'req-audit-archive-again')).status).toBe(200);
    const restored = await send('PATCH', `/v1/links/${linkId}`, 'req-audit-restore', { archived: false });
    expect(restored.status, restored.text).toBe(200);
    // Refused requests: a taken slug (409) and an invalid body (400) write nothing.
    const clash = await send('POST', '/v1/links', 'req-audit-409', {
      domain: w.domain,
      url: 'https://example.com/x',
      key: 'audit-one',
    });
    expect(clash.status).toBe(409);
    expect((await send('PATCH', `/v1/links/${linkId}`, 'req-audit-400', { url: 'not a url' })).status).toBe(400);
    const deep = await send('POST', '/v1/deep-links', 'req-audit-deep', { deepLinkAppId: w.deepLinkApp.id });
    expect(deep.status, deep.text).toBe(201);
    deepLinkId = deep.body.data.id as string;
    expect(
      (await send('PATCH', `/v1/deep-links/${deepLinkId}`, 'req-audit-deep-patch', { comments: 'c' })).status,
    ).toBe(200);
  });

  it('one entry per change, newest first, with actor, action, resource, request and changed field names', async () => {
    const res = await auditLog();
    expect(res.status, res.text).toBe(200);
    const entries = res.body.data as Entry[];
    expect(entries.map((e) => [e.action, e.resource.id, e.requestId])).toEqual([
      ['deep_link.updated', deepLinkId, 'req-audit-deep-patch'],
      ['deep_link.created', deepLinkId, 'req-audit-deep'],
      ['link.restored', linkId, 'req-audit-restore'],
      ['link.archived', linkId, 'req-audit-archive'],
      ['link.updated', linkId, 'req-audit-patch'],
      ['link.created', linkId, 'req-audit-create'],
    ]);
    for (const entry of entries) {
      expect(entry.actor).toEqual({ type: 'api_key', keyId: writer.id, name: 'audit writer' });
      expect(entry.id).toMatch(/^aud_/);
      expect(entry.userAgent).toBe('audit-e2e/1.0');
      expect(entry.ip).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(entry.occurredAt))).toBe(false);
    }
    const byRequest = new Map(entries.map((e) => [e.requestId, e]));
    expect(byRequest.get('req-audit-create')?.resource).toEqual({ type: 'link', id: linkId });
    expect(byRequest.get('req-audit-deep')?.resource).toEqual({ type: 'deep_link', id: deepLinkId });
    expect(byRequest.get('req-audit-create')?.changedFields).toEqual([]);
    expect(byRequest.get('req-audit-patch')?.changedFields.sort()).toEqual(['password', 'title', 'url']);
    expect(byRequest.get('req-audit-archive')?.changedFields).toEqual(['archived']);
    expect(byRequest.get('req-audit-restore')?.changedFields).toEqual(['archived']);
    expect(byRequest.get('req-audit-deep-patch')?.changedFields).toEqual(['comments']);
    // No value of any field enters the log.
    expect(res.text).not.toContain('a secret never logged');
    expect(res.text).not.toContain('https://example.com/audit-2');
  });

  it('filters by action, resource id and key id; an unknown or foreign id is an empty page', async () => {
    const byAction = await walk('&action=link.updated', 10);
    expect(byAction.map((e) => e.requestId)).toEqual(['req-audit-patch']);
    const byResource = await walk(`&resourceId=${linkId}`, 10);
    expect(byResource.map((e) => e.action)).toEqual(['link.restored', 'link.archived', 'link.updated', 'link.created']);
    const both = await walk(`&resourceId=${deepLinkId}&action=deep_link.created`, 10);
    expect(both.map((e) => e.requestId)).toEqual(['req-audit-deep']);
    expect((await walk(`&keyId=${writer.id}`, 10)).length).toBe(6);
    expect(await walk(`&keyId=${writer.id}&action=link.archived`, 10)).toHaveLength(1);
    expect(await walk('&resourceId=lnk_doesnotexist', 10)).toEqual([]);
    expect(await walk('&keyId=key_doesnotexist', 10)).toEqual([]);
  });

  it('from / to bound the time, inclusive', async () => {
    const all = await walk('', 10);
    const patch = all.find((e) => e.requestId === 'req-audit-patch')!;
    const upToPatch = await walk(`&to=${encodeURIComponent(patch.occurredAt)}`, 10);
    expect(upToPatch.map((e) => e.requestId)).toEqual(['req-audit-patch', 'req-audit-create']);
    const fromPatch = await walk(`&from=${encodeURIComponent(patch.occurredAt)}&resourceId=${linkId}`, 10);
    expect(fromPatch.map((e) => e.requestId)).toEqual(['req-audit-restore', 'req-audit-archive', 'req-audit-patch']);
  });

  it('pages: every entry exactly once, in order, whatever the page size', async () => {
    const all = await walk('', 100);
    expect(all).toHaveLength(6);
    for (const limit of [1, 2, 4]) expect(await walk('', limit)).toEqual(all);
    expect((await walk(`&resourceId=${linkId}`, 1)).map((e) => e.id)).toEqual(
      all.filter((e) => e.resource.id === linkId).map((e) => e.id),
    );
    // A cursor is bound to its filters.
    const first = await auditLog('?limit=1');
    const other = await auditLog(
      `?limit=1&action=link.created&cursor=${encodeURIComponent(first.body.pagination.nextCursor as string)}`,
    );
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_cursor');
  });

  it('tenant walls: another workspace sees none of these entries, even filtering by their ids', async () => {
    const other = (query: string) => auditLog(query, t.tenantB.serverKey);
    for (const query of ['', `?resourceId=${linkId}`, `?keyId=${writer.id}`, '?action=link.created']) {
      const res = await other(query);
      expect(res.status).toBe(200);
      expect(
        (res.body.data as Entry[]).filter((e) => e.resource.id === linkId || e.resource.id === deepLinkId),
      ).toEqual([]);
    }
  });

  it('needs audit:read (read and all include it); bad filters are 400', async () => {
    const linksOnly = (
      await issueKey({ workspaceId: w.workspaceId, kind: 'server', name: 'no audit', scopes: ['links:read'] })
    ).key;
    const refused = await auditLog('', linksOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ reason: 'missing_scope', required: 'audit:read' });
    expect((await auditLog('', writer.key)).status).toBe(200);
    expect((await auditLog('?action=link.exploded')).status).toBe(400);
    expect((await auditLog('?from=yesterday')).status).toBe(400);
  });

  it('a legacy create writes link.created, its actor the mobile key', async () => {
    const res = await postForm(
      t.baseUrl,
      '/api/mobile/link/create',
      { url: 'https://example.com/legacy' },
      { 'api-key': w.mobileKey, 'x-request-id': 'req-audit-legacy' },
    );
    expect(res.status, res.text).toBe(200);
    const mobile = (await apiKeyRepository.findByHash(hashApiKey(w.mobileKey)))!;
    const logged = await walk('&action=link.created', 10);
    const legacy = logged.filter((e) => e.requestId === 'req-audit-legacy');
    expect(legacy).toHaveLength(1);
    expect(legacy[0]!.actor).toEqual({ type: 'api_key', keyId: publicKeyIdOf(mobile), name: mobile.name ?? null });
    expect(legacy[0]!.resource.type).toBe('link');
    // The legacy answer carries the short link, not the id: the entry names a link of this workspace.
    const link = await http(t.baseUrl, 'GET', `/v1/links/${legacy[0]!.resource.id}`, {
      headers: { 'api-key': writer.key },
    });
    expect(link.body.data.url).toBe('https://example.com/legacy');
  });

  it('bulk create writes one link.created entry per transaction chunk listing the created links; a refused batch none', async () => {
    const res = await send('POST', '/v1/links/bulk', 'req-audit-bulk', {
      links: [
        { domain: w.domain, url: 'https://example.com/bulk-1' },
        { domain: w.domain, url: 'not a url' },
        { domain: w.domain, url: 'https://example.com/bulk-2', key: 'audit-one' },
        { domain: w.domain, url: 'https://example.com/bulk-3' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const results = res.body.data as Array<{ success: boolean; data?: { id: string } }>;
    expect(results.map((r) => r.success)).toEqual([true, false, false, true]);
    const created = results.flatMap((r) => (r.data ? [r.data.id] : []));
    const bulk = (await walk('&action=link.created', 10)).filter((e) => e.requestId === 'req-audit-bulk');
    expect(bulk).toHaveLength(1);
    const entry = bulk[0]!;
    expect(entry.actor).toEqual({ type: 'api_key', keyId: writer.id, name: 'audit writer' });
    expect([...entry.resourceIds].sort()).toEqual([...created].sort());
    expect(entry.resource).toEqual({ type: 'link', id: entry.resourceIds[0] });
    // resourceId finds the chunk's entry by every link it created, not only the first.
    for (const id of entry.resourceIds)
      expect((await walk(`&resourceId=${id}`, 10)).map((e) => e.id)).toEqual([entry.id]);

    // A batch of 100 spans several transactions: each link is found under exactly its chunk's entry.
    const big = await send('POST', '/v1/links/bulk', 'req-audit-bulk-100', {
      links: Array.from({ length: 100 }, (_, i) => ({
        domain: w.domain,
        url: `https://example.com/many-${i}`,
        tags: i % 2 ? ['t'] : [],
      })),
    });
    expect(big.status, big.text).toBe(200);
    const bigIds = (big.body.data as Array<{ success: boolean; data: { id: string } }>).map((r) => r.data.id);
    const chunks = (await walk('&action=link.created', 100)).filter((e) => e.requestId === 'req-audit-bulk-100');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((e) => e.resourceIds).sort()).toEqual([...bigIds].sort());
    for (const id of bigIds) {
      const found = await walk(`&resourceId=${id}`, 10);
      expect(found, id).toHaveLength(1);
      expect(found[0]!.resourceIds, id).toContain(id);
    }

    // Every item refused: nothing is written, no entry.
    const refused = await send('POST', '/v1/links/bulk', 'req-audit-bulk-refused', {
      links: [{ domain: w.domain, url: 'https://example.com/x', key: 'audit-one' }],
    });
    expect(refused.status, refused.text).toBe(200);
    expect((await walk('', 100)).filter((e) => e.requestId === 'req-audit-bulk-refused')).toEqual([]);
  });
});
