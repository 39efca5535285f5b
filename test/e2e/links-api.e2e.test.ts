import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '@shared/db/keys';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { verifyPassword } from '@shared/util/password';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const server = (key = t.tenantA.serverKey) => ({ 'api-key': key });
const create = async (json: Record<string, unknown>, key = t.tenantA.serverKey) => {
  const res = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: server(key),
    json: { domain: t.tenantA.domain, ...json },
  });
  expect(res.status).toBe(201);
  return res.body.data;
};
const patch = (id: string, json: unknown, key = t.tenantA.serverKey) =>
  http(t.baseUrl, 'PATCH', `/v1/links/${id}`, { headers: server(key), json });
const slugItem = async (domain: string, key: string) =>
  (
    await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.slug(domain, key), ConsistentRead: true }),
    )
  ).Item;

describe('all Link fields round-trip', () => {
  it('stores overrides (top-level and platformOverrides, both key styles), tracking, socialPreview, objects', async () => {
    const link = await create({
      url: 'https://example.com/a',
      key: 'full-1',
      title: 'Full',
      platformOverrides: {
        ios: 'https://ios.example.com',
        androidOverrideUrl: 'https://android.example.com',
        desktop: 'https://top.example.com',
      },
      desktopOverrideUrl: 'https://top.example.com',
      tracking: { utmSource: 'news', customParams: { a: 'b' }, adGroupId: 'g1', extraKey: 'kept' },
      socialPreview: { title: 'OG', image: 'https://img.example.com/x.png' },
      objects: { screen: 'home', n: 1 },
      expiresAt: '2040-01-01T00:00:00Z',
      expiredUrl: 'https://expired.example.com',
    });
    expect(link).toMatchObject({
      iosOverrideUrl: 'https://ios.example.com',
      androidOverrideUrl: 'https://android.example.com',
      desktopOverrideUrl: 'https://top.example.com',
      tracking: { utmSource: 'news', customParams: { a: 'b' }, adGroupId: 'g1', extraKey: 'kept' },
      socialPreview: { title: 'OG', image: 'https://img.example.com/x.png' },
      objects: { screen: 'home', n: 1 },
      expiresAt: '2040-01-01T00:00:00.000Z',
      expiredUrl: 'https://expired.example.com',
    });
    const got = await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() });
    expect(got.body.data).toEqual(link);
  });
});

describe('PATCH /v1/links/{linkId}', () => {
  it('null clears, absent leaves, tags replace, updatedAt moves, createdAt does not', async () => {
    const link = await create({
      url: 'https://example.com/p',
      comments: 'c',
      tags: ['One', 'Two'],
      expiresAt: '2040-01-01T00:00:00Z',
      title: 'T',
    });
    const res = await patch(link.id, {
      comments: null,
      tags: ['two', 'Three'],
      expiresAt: null,
      unknownField: 'tolerated',
    });
    expect(res.status).toBe(200);
    const updated = res.body.data;
    expect(updated).toMatchObject({
      comments: null,
      expiresAt: null,
      title: 'T',
      url: 'https://example.com/p',
      key: link.key,
    });
    expect(updated.tags.map((t: { name: string }) => t.name)).toEqual(['Two', 'Three']);
    expect(updated.tags[0].id).toBe(link.tags[1].id);
    expect(updated.createdAt).toBe(link.createdAt);
    expect(updated.updatedAt > link.updatedAt).toBe(true);
    expect((await http(t.baseUrl, 'GET', `/v1/links/${link.id}`, { headers: server() })).body.data).toEqual(updated);
  });

  it('hashes a new password, removes it with null, and rewrites the slug redirect record each time', async () => {
    const link = await create({ url: 'https://example.com/pw' });
    const set = await patch(link.id, { password: 'secret-1', url: 'https://example.com/new' });
    expect(set.body.data.passwordProtected).toBe(true);
    expect(JSON.stringify(set.body)).not.toContain('secret-1');
    const slug = await slugItem(link.domain, link.key);
    expect(slug?.url).toBe('https://example.com/new');
    expect(await verifyPassword('secret-1', String(slug?.passwordHash))).toBe(true);
    const cleared = await patch(link.id, { password: null });
    expect(cleared.body.data.passwordProtected).toBe(false);
    expect((await slugItem(link.domain, link.key))?.passwordHash).toBeNull();
  });

  it('moves the slug atomically: old slug freed, new one taken, 409 slug_taken when used', async () => {
    const a = await create({ url: 'https://example.com/a', key: 'move-a' });
    const b = await create({ url: 'https://example.com/b', key: 'move-b' });
    const clash = await patch(a.id, { key: 'move-b' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('slug_taken');
    expect((await slugItem(a.domain, 'move-a'))?.linkId).toBe(a.id);

    const moved = await patch(a.id, { slug: 'move-c' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      key: 'move-c',
      shortLink: localShortLink(t.edgeUrl, a.domain, 'move-c'),
      title: localShortLink(t.edgeUrl, a.domain, 'move-c'),
    });
    expect(await slugItem(a.domain, 'move-a')).toBeUndefined();
    expect((await slugItem(a.domain, 'move-c'))?.linkId).toBe(a.id);
    // the freed slug can be used again
    expect((await patch(b.id, { key: 'move-a' })).status).toBe(200);
  });

  it("moving to another workspace's or an unknown domain is 400 naming domain", async () => {
    const a = await create({ url: 'https://example.com/d' });
    const res = await patch(a.id, { domain: t.tenantB.domain });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'domain', message: expect.any(String) }]);
  });

  it('validates every field with the create rules and names each bad one', async () => {
    const a = await create({ url: 'https://example.com/v' });
    const res = await patch(a.id, {
      url: 'ftp://x',
      key: 'api',
      title: 'x'.repeat(256),
      tags: Array.from({ length: 21 }, (_, i) => `t${i}`),
      comments: 'x'.repeat(1001),
      expiresAt: 'tomorrow',
      iosOverrideUrl: 'javascript:alert(1)',
      archived: 'yes',
      objects: [1],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(
      ['archived', 'comments', 'expiresAt', 'iosOverrideUrl', 'key', 'objects', 'tags', 'title', 'url'].sort(),
    );
    expect((await patch(a.id, { url: null })).status).toBe(400);
  });

  it('lets concurrent patches of one link all land on a consistent link and slug', async () => {
    const a = await create({ url: 'https://example.com/c', key: 'race-0' });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        patch(a.id, i % 2 ? { key: `race-${i}` } : { title: `title-${i}`, tags: [`tag-${i}`] }),
      ),
    );
    for (const r of results) expect(r.status).toBe(200);
    const final = (await http(t.baseUrl, 'GET', `/v1/links/${a.id}`, { headers: server() })).body.data;
    const slug = await slugItem(final.domain, final.key);
    expect(slug).toMatchObject({ linkId: a.id, title: final.title });
    for (const i of [0, 1, 3, 5])
      if (`race-${i}` !== final.key) expect(await slugItem(final.domain, `race-${i}`)).toBeUndefined();
  });
});

describe('DELETE /v1/links/{linkId} and restore', () => {
  it('archives (200 with the archived link), keeps the slug, and PATCH archived:false restores', async () => {
    const a = await create({ url: 'https://example.com/arch', key: 'arch-1' });
    const del = await http(t.baseUrl, 'DELETE', `/v1/links/${a.id}`, { headers: server() });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: a.id, archived: true, key: 'arch-1' });
    expect((await slugItem(a.domain, 'arch-1'))?.archived).toBe(true);
    expect((await http(t.baseUrl, 'DELETE', `/v1/links/${a.id}`, { headers: server() })).body.data.archived).toBe(true);
    const taken = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server(),
      json: { url: 'https://x.com', domain: a.domain, key: 'arch-1' },
    });
    expect(taken.status).toBe(409);
    const restored = await patch(a.id, { archived: false });
    expect(restored.body.data.archived).toBe(false);
    expect((await slugItem(a.domain, 'arch-1'))?.archived).toBe(false);
  });
});
