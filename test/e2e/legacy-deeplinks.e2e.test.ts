import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { generateApiKey, hashApiKey } from '@shared/auth/api-keys';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { createDeepLink } from '@shared/links/create-deep-link';
import { linkRepository } from '@shared/links/link-repository';
import { appRepository } from '@shared/tenancy/app-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { prefixedId } from '@shared/util/ids';
import { http } from '@test/support/http-client';
import { multipartText, postForm } from '@test/support/legacy-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';
import { TEST_ORIGIN } from '@test/support/test-origin';

let t: TestStack;
/** A second app of tenant A, with its own domain and app key. */
let otherApp: { id: string; domain: string; appKey: string };

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  const now = new Date().toISOString();
  const id = prefixedId('app');
  const domain = `second-${id.slice(-8).toLowerCase()}.localhost`;
  const domainId = prefixedId('dom');
  await domainRepository.create({
    id: domainId,
    workspaceId: t.tenantA.workspaceId,
    domain,
    verified: true,
    placeholder: null,
    expiredUrl: null,
    notFoundUrl: null,
    primary: false,
    archived: false,
    usage: 'DEEPLINK',
    appId: id,
    createdAt: now,
    updatedAt: now,
  });
  await appRepository.put({
    id,
    workspaceId: t.tenantA.workspaceId,
    name: 'Second app',
    domainId,
    domain,
    defaultUrl: 'https://second.example.com/',
    ios: null,
    android: null,
    createdAt: now,
    updatedAt: now,
  });
  const appKey = generateApiKey('app');
  await apiKeyRepository.put({
    keyHash: hashApiKey(appKey),
    kind: 'app',
    workspaceId: t.tenantA.workspaceId,
    appId: id,
    revoked: false,
    createdAt: now,
    publishable: null,
  });
  otherApp = { id, domain, appKey };
});

const PATH = '/api/mobile/deeplink';
const app = (key = t.tenantA.deepLinkApp.appKey) => ({ 'api-key': key });
const create = (fields: Record<string, string | Blob>, key?: string) => postForm(t.baseUrl, PATH, fields, app(key));
const retrieve = (shortLink: string | undefined, headers: Record<string, string> = app()) =>
  http(t.baseUrl, 'GET', `${PATH}${shortLink === undefined ? '' : `?shortLink=${encodeURIComponent(shortLink)}`}`, {
    headers,
  });

const APP_NOT_FOUND = { success: false, msg: 'Deep link app not found, please check the API key' };
const LINK_NOT_FOUND = { success: false, msg: 'requested link could not be found' };

describe('POST /api/mobile/deeplink', () => {
  it("creates a deep link of the key's app: app domain, app default URL, 6-character slug, legacy shape", async () => {
    const res = await create({});
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    const data = res.body.data;
    expect(data.key).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(data).toEqual({
      id: expect.stringMatching(/^lnk_/),
      title: localShortLink(t.edgeUrl, t.tenantA.deepLinkApp.domain, data.key),
      url: t.tenantA.deepLinkApp.defaultUrl,
      domain: t.tenantA.deepLinkApp.domain,
      key: data.key,
      shortLink: localShortLink(t.edgeUrl, t.tenantA.deepLinkApp.domain, data.key),
      linkType: 'DEEPLINK',
      comments: null,
      linkObject: { object: null },
      tags: [],
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
    const stored = await linkRepository.findById(data.id, true);
    expect(stored).toMatchObject({
      workspaceId: t.tenantA.workspaceId,
      linkType: 'DEEPLINK',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
  });

  it('applies slug, title, objects, tags, comments, password', async () => {
    const res = await create({
      slug: 'open-product',
      title: 'Open the product',
      objects: JSON.stringify({ route: '/product/7' }),
      tags: JSON.stringify(['deep', 'promo']),
      comments: 'from the old SDK',
      password: 'pw-1',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      key: 'open-product',
      title: 'Open the product',
      comments: 'from the old SDK',
      linkObject: { object: { route: '/product/7' } },
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
    expect(res.body.data.tags.map((e: any) => e.tag.name)).toEqual(['deep', 'promo']);
    expect(JSON.stringify(res.body)).not.toMatch(/pw-1|password/);
    expect((await linkRepository.findById(res.body.data.id, true))?.passwordHash).toMatch(/^scrypt/);
  });

  it('does not accept url (the app default URL is the destination): 400 msg', async () => {
    const res = await create({ url: 'https://example.com/elsewhere' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      msg: "url is not accepted by deeplink create: the app's default URL is used",
    });
  });

  it('slug taken: 200 {success:false,msg:"slug already exists"}', async () => {
    expect((await create({ slug: 'dup-deep' })).status).toBe(200);
    const again = await create({ slug: 'dup-deep' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: false, msg: 'slug already exists' });
    // The same slug on another app's domain is free.
    expect((await create({ slug: 'dup-deep' }, otherApp.appKey)).body.data.domain).toBe(otherApp.domain);
  });

  it('validates the shared fields and the body like link create (400 msg)', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ slug: 'robots.txt' }, /slug is a reserved word/],
      [{ slug: 'a/b' }, /slug may contain only/],
      [{ title: 'x'.repeat(256) }, /title must be at most 255/],
      [{ objects: '[]' }, /^objects must be a serialized JSON object$/],
      [{ objects: '{"a":' }, /^objects must be a serialized JSON object$/],
      [{ tags: '"solo"' }, /^tags must be a serialized JSON array of strings$/],
      [{ tags: '[true]' }, /^tags must be a serialized JSON array of strings$/],
      [{ comments: 'c'.repeat(1001) }, /comments must be at most 1000/],
      [{ password: 'p'.repeat(129) }, /password must be at most 128/],
    ];
    for (const [fields, msg] of cases) {
      const res = await create(fields);
      expect(res.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(res.body).toEqual({ success: false, msg: expect.stringMatching(msg) });
    }
    const json = await http(t.baseUrl, 'POST', PATH, { headers: app(), json: { slug: 'x' } });
    expect(json.body).toEqual({ success: false, msg: 'Content-Type must be multipart/form-data' });
    const cut = await http(t.baseUrl, 'POST', PATH, {
      headers: { ...app(), 'content-type': 'multipart/form-data; boundary=ZZ' },
      body: multipartText('ZZ', [{ name: 'slug', value: 'abc' }], false),
    });
    expect(cut.status).toBe(400);
    expect(cut.body).toEqual({ success: false, msg: 'The multipart/form-data body is malformed' });
  });

  it('no api-key: 400 {success:false,msg} "API key is required"', async () => {
    const res = await postForm(t.baseUrl, PATH, { slug: 'nokey' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, msg: 'API key is required' });
  });

  it('unknown, revoked or other-kind key: 404 "deep-link app not found, check the key"', async () => {
    const extra = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    await apiKeyRepository.revoke(hashApiKey(extra.deepLinkApp.appKey));
    for (const key of [
      'ak_unknown',
      extra.deepLinkApp.appKey,
      t.tenantA.mobileKey,
      t.tenantA.serverKey,
      t.tenantA.publishableKeys.android.key,
    ]) {
      const res = await create({ slug: `k${Math.random().toString(36).slice(2, 8)}` }, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(APP_NOT_FOUND);
    }
  });
});

describe('GET /api/mobile/deeplink?shortLink=', () => {
  it('returns the legacy shape with deepLinkAppId, as create returned it', async () => {
    const created = (await create({ tags: '["r"]', objects: '{"x":1}', comments: 'c' })).body.data;
    const res = await retrieve(created.shortLink);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: created });
  });

  it('retrieves a deep link created through v1 (createDeepLink)', async () => {
    const v1 = await createDeepLink(
      t.tenantA.workspaceId,
      {
        deepLinkAppId: t.tenantA.deepLinkApp.id,
        url: 'https://example.com/in-app',
        title: 'From v1',
        objects: { a: 'b' },
        tags: ['v1tag'],
      },
      TEST_ORIGIN,
    );
    const res = await retrieve(v1.shortLink);
    expect(res.status).toBe(200);
    // The app may have been opened through the launch view's alternate host: same link.
    const viaOpenHost = await retrieve(v1.shortLink.replace('https://', 'https://open.'));
    expect(viaOpenHost.body).toEqual(res.body);
    expect(res.body.data).toEqual({
      id: v1.id,
      title: 'From v1',
      url: 'https://example.com/in-app',
      domain: v1.domain,
      key: v1.key,
      shortLink: v1.shortLink,
      linkType: 'DEEPLINK',
      comments: null,
      linkObject: { object: { a: 'b' } },
      tags: [{ id: expect.stringMatching(/^ltg_/), tag: v1.tags[0] }],
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
  });

  it('no api-key: 400 {success:false,error}; unknown or other-kind key: 404 msg', async () => {
    const created = (await create({})).body.data;
    const missing = await retrieve(created.shortLink, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, error: 'Header api-key is required' });
    for (const key of ['ak_nope', t.tenantA.mobileKey, t.tenantA.serverKey]) {
      const res = await retrieve(created.shortLink, app(key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(APP_NOT_FOUND);
    }
  });

  it('no shortLink: 400 {success:false,error:"shortLink is required"}; not a URL: 400 error', async () => {
    for (const shortLink of [undefined, '']) {
      const res = await retrieve(shortLink);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'shortLink is required' });
    }
    const res = await retrieve('not a url');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'shortLink must be the full short-link URL' });
  });

  it('no such link for this app key: 404 msg (unknown, short link, other app, other workspace)', async () => {
    const mine = (await create({})).body.data;
    const otherAppLink = (await create({}, otherApp.appKey)).body.data;
    const otherTenant = (await create({}, t.tenantB.deepLinkApp.appKey)).body.data;
    const shortLink = (
      await postForm(t.baseUrl, '/api/mobile/link/create', { url: 'https://a.com' }, { 'api-key': t.tenantA.mobileKey })
    ).body.data;
    for (const link of [
      `https://${t.tenantA.deepLinkApp.domain}/none00`,
      `https://${t.tenantA.deepLinkApp.domain}/${mine.key}/x`,
      otherAppLink.shortLink,
      otherTenant.shortLink,
      shortLink.shortLink,
    ]) {
      const res = await retrieve(link);
      expect(res.status, link).toBe(404);
      expect(res.body).toEqual(LINK_NOT_FOUND);
    }
    expect((await retrieve(otherAppLink.shortLink, app(otherApp.appKey))).body.data.id).toBe(otherAppLink.id);
    expect((await retrieve(mine.shortLink)).body.data.id).toBe(mine.id);
  });
});
