/**
 * The key lifecycle as an operator runs it (`admin keys create|list|revoke|rotate`), against a
 * running local stack: scoped keys, revocation by id, rotation with an overlap and expiry, both
 * checked with a fake clock on the server side.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAdminFailing, runAdminJson } from '@test/support/admin-cli';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { provideServices, resetServices } from '@shared/runtime/services';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => t.stop());
afterEach(() => {
  resetServices('clocks');
});

const SPAWNS = { timeout: 240_000 };
const HOUR = 3_600_000;

interface CreatedKey {
  id: string;
  key: string;
  name: string;
  kind: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
}
interface ListedKey extends Omit<CreatedKey, 'key'> {
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const listLinks = (key: string) => http(t.baseUrl, 'GET', '/v1/links', { headers: { 'api-key': key } });
const createLink = (key: string) =>
  http(t.baseUrl, 'POST', '/v1/links', {
    headers: { 'api-key': key },
    json: { url: 'https://example.com/lifecycle', domain: t.tenantA.domain },
  });
const list = () => runAdminJson<ListedKey[]>(['keys', 'list', t.tenantA.workspaceId]);

/** A failing run with --json: exit 1, nothing on stdout, one `{"error":{code,message}}` line on stderr. */
const jsonFailure = async (args: string[]) => {
  const result = await runAdminFailing([...args, '--json']);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  return (JSON.parse(result.stderr.trim()) as { error: { code: string; message: string } }).error;
};

describe('admin keys', SPAWNS, () => {
  it('create prints the key once with its id, name, kind, scopes and expiry; the key has just those scopes', async () => {
    const created = await runAdminJson<CreatedKey>([
      'keys',
      'create',
      t.tenantA.workspaceId,
      '--scope',
      'links:read,domains:read',
      '--name',
      'reporting',
      '--expires-in',
      '90d',
    ]);
    expect(Object.keys(created)).toEqual(['id', 'name', 'kind', 'scopes', 'createdAt', 'expiresAt', 'key']);
    expect(created).toMatchObject({ name: 'reporting', kind: 'server', scopes: ['links:read', 'domains:read'] });
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^sk_/);
    expect(Date.parse(created.expiresAt!) - Date.parse(created.createdAt)).toBe(90 * 24 * HOUR);
    expect((await listLinks(created.key)).status).toBe(200);
    const denied = await createLink(created.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toEqual({ reason: 'missing_scope', required: 'links:write' });

    // Expiry: the same 401 as a revoked key once expiresAt is reached.
    provideServices({ clocks: { keys: () => Date.parse(created.expiresAt!) + 1 } });
    expect((await listLinks(created.key)).status).toBe(401);
  });

  it('list shows every kind of key with ids, never a key or its hash', async () => {
    const created = await runAdminJson<CreatedKey>([
      'keys',
      'create',
      t.tenantA.workspaceId,
      '--scope',
      'read',
      '--name',
      'listed',
    ]);
    const keys = await list();
    expect(new Set(keys.map((k) => k.kind))).toEqual(new Set(['server', 'mobile', 'app', 'publishable']));
    const mine = keys.find((k) => k.id === created.id)!;
    const { key: _key, ...withoutKey } = created;
    expect(mine).toEqual({ ...withoutKey, lastUsedAt: null, revokedAt: null });
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(
        ['createdAt', 'expiresAt', 'id', 'kind', 'lastUsedAt', 'name', 'revokedAt', 'scopes'].sort(),
      );
    }
    const text = JSON.stringify(keys);
    for (const plain of [created.key, t.tenantA.serverKey, t.tenantA.mobileKey]) expect(text).not.toContain(plain);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('revoke by id: the key answers 401 at once; revoking it again or an unknown id is an error', async () => {
    const created = await runAdminJson<CreatedKey>([
      'keys',
      'create',
      t.tenantA.workspaceId,
      '--scope',
      'all',
      '--name',
      'leaked',
    ]);
    expect((await listLinks(created.key)).status).toBe(200);
    const revoked = await runAdminJson<ListedKey>(['keys', 'revoke', created.id]);
    expect(revoked).toMatchObject({ id: created.id, revokedAt: expect.any(String) });
    expect((await listLinks(created.key)).status).toBe(401);
    expect((await list()).find((k) => k.id === created.id)?.revokedAt).toBe(revoked.revokedAt);

    expect(await jsonFailure(['keys', 'revoke', created.id])).toMatchObject({ code: 'conflict' });
    expect(await jsonFailure(['keys', 'rotate', created.id])).toMatchObject({ code: 'conflict' });
    expect(await jsonFailure(['keys', 'revoke', 'key_doesnotexist'])).toMatchObject({ code: 'not_found' });
  });

  it('rotate: a new key with the same name and scopes; the old one works until the overlap ends, then 401', async () => {
    const old = await runAdminJson<CreatedKey>([
      'keys',
      'create',
      t.tenantA.workspaceId,
      '--scope',
      'links:read',
      '--name',
      'ci',
    ]);
    const rotated = await runAdminJson<CreatedKey & { previousKeyId: string; previousExpiresAt: string }>([
      'keys',
      'rotate',
      old.id,
      '--overlap',
      '2h',
    ]);
    expect(rotated).toMatchObject({ name: 'ci', kind: 'server', scopes: ['links:read'], previousKeyId: old.id });
    expect(rotated.id).not.toBe(old.id);
    expect(rotated.expiresAt).toBeNull();
    const overlapEnd = Date.parse(rotated.previousExpiresAt);
    expect(overlapEnd - Date.parse(rotated.createdAt)).toBe(2 * HOUR);

    expect((await listLinks(old.key)).status).toBe(200);
    expect((await listLinks(rotated.key)).status).toBe(200);
    provideServices({ clocks: { keys: () => overlapEnd - 1000 } });
    expect((await listLinks(old.key)).status).toBe(200);
    provideServices({ clocks: { keys: () => overlapEnd + 1000 } });
    expect((await listLinks(old.key)).status).toBe(401);
    expect((await listLinks(rotated.key)).status).toBe(200);
    expect((await createLink(rotated.key)).status).toBe(403);
  });

  it('publishable, mobile and app keys are rotated and revoked by id the same way', async () => {
    const app = (await list()).find((k) => k.kind === 'app')!;
    const rotated = await runAdminJson<CreatedKey & { previousKeyId: string }>([
      'keys',
      'rotate',
      app.id,
      '--overlap',
      '0s',
    ]);
    expect(rotated).toMatchObject({ kind: 'app', name: app.name, scopes: [], previousKeyId: app.id });
    expect(rotated.key).toMatch(/^ak_/);
    const analytics = (key: string) =>
      http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app?range=7d', { headers: { 'api-key': key } });
    expect((await analytics(t.tenantA.deepLinkApp.appKey)).status).toBe(401);
    expect((await analytics(rotated.key)).status).not.toBe(401);
    await runAdminJson(['keys', 'revoke', rotated.id]);
    expect((await analytics(rotated.key)).status).toBe(401);
  });

  it('bad input is one clear error and writes nothing', async () => {
    const before = (await list()).length;
    const ws = t.tenantA.workspaceId;
    for (const [args, message] of [
      [['--scope', 'links:delete', '--name', 'x'], /^Unknown scope links:delete\b/],
      [['--scope', ',', '--name', 'x'], /^Give at least one scope\b/],
      [['--scope', 'read', '--name', 'x', '--expires-in', '0d'], /in the future/],
      [['--scope', 'read', '--name', 'x', '--expires-in', '731d'], /at most 2 years/],
      [['--scope', 'read', '--name', 'x', '--expires-in', 'soon'], /number and a unit/],
    ] as const) {
      const error = await jsonFailure(['keys', 'create', ws, ...args]);
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(message);
    }
    expect(await jsonFailure(['keys', 'create', 'ws_missing', '--scope', 'read', '--name', 'x'])).toMatchObject({
      code: 'not_found',
    });
    expect((await list()).length).toBe(before);
  });
});
