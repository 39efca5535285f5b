import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { recordClick } from '@shared/clicks/record-click';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { createDeepLink } from '@shared/links/create-deep-link';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { http } from '@test/support/http-client';
import { multipartText, postForm } from '@test/support/legacy-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { localShortLink } from '@test/support/local-short-link';
import { TEST_ORIGIN } from '@test/support/test-origin';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const CREATE = '/api/mobile/link/create';
const mobile = (key = t.tenantA.mobileKey) => ({ 'api-key': key });
const create = (fields: Record<string, string | Blob>, key?: string) =>
  postForm(t.baseUrl, CREATE, fields, mobile(key));
const getLink = (shortLink: string | undefined, headers: Record<string, string> = mobile()) =>
  http(
    t.baseUrl,
    'GET',
    `/api/mobile/link${shortLink === undefined ? '' : `?shortLink=${encodeURIComponent(shortLink)}`}`,
    { headers },
  );
const invalid = (msg: string | RegExp) => ({
  success: false,
  msg: typeof msg === 'string' ? msg : expect.stringMatching(msg),
});

const LEGACY_KEYS = [
  'id',
  'title',
  'url',
  'domain',
  'key',
  'shortLink',
  'linkType',
  'comments',
  'linkObject',
  'tags',
  'projectId',
];

describe('POST /api/mobile/link/create: success shape', () => {
  it('creates a short link on the primary domain with a random 6-character slug, in the legacy shape', async () => {
    const res = await create({ url: 'https://example.com/a?b=1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...LEGACY_KEYS].sort());
    expect(data.key).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(data).toEqual({
      id: expect.stringMatching(/^lnk_/),
      title: localShortLink(t.edgeUrl, t.tenantA.domain, data.key),
      url: 'https://example.com/a?b=1',
      domain: t.tenantA.domain,
      key: data.key,
      shortLink: localShortLink(t.edgeUrl, t.tenantA.domain, data.key),
      linkType: 'SHORTLINK',
      comments: null,
      linkObject: { object: null },
      tags: [],
      projectId: t.tenantA.workspaceId,
    });
  });

  it('applies every form field: slug, title, objects, tags, comments, password', async () => {
    const res = await create({
      url: 'https://example.com/full',
      slug: 'legacy-full.1',
      title: 'Spring sale',
      objects: JSON.stringify({ screen: 'product', id: 42, nested: { a: [1, true, null] } }),
      tags: JSON.stringify(['Spring', 'mobile', 'spring']),
      comments: 'made by the old app',
      password: 's3cret',
    });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      key: 'legacy-full.1',
      title: 'Spring sale',
      comments: 'made by the old app',
      linkObject: { object: { screen: 'product', id: 42, nested: { a: [1, true, null] } } },
    });
    expect(data.tags).toHaveLength(2);
    expect(data.tags.map((t: any) => t.tag.name)).toEqual(['Spring', 'mobile']);
    for (const entry of data.tags) {
      expect(entry).toEqual({
        id: expect.stringMatching(/^ltg_/),
        tag: { id: expect.stringMatching(/^tag_/), name: expect.any(String), color: expect.any(String) },
      });
    }
    expect(JSON.stringify(res.body)).not.toMatch(/s3cret|scrypt|password/);

    // The same link through v1: same id, the password only as passwordProtected.
    const v1 = await http(t.baseUrl, 'GET', `/v1/links/${data.id}`, { headers: { 'api-key': t.tenantA.serverKey } });
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({
      id: data.id,
      key: 'legacy-full.1',
      domain: t.tenantA.domain,
      url: 'https://example.com/full',
      title: 'Spring sale',
      comments: 'made by the old app',
      passwordProtected: true,
      objects: data.linkObject.object,
      linkType: 'SHORTLINK',
      deepLinkAppId: null,
    });
    expect(v1.body.data.tags).toEqual(data.tags.map((e: any) => e.tag));
  });

  it('treats empty optional fields as omitted and ignores unknown fields', async () => {
    const res = await create({
      url: 'https://example.com/empty',
      slug: '',
      title: '',
      objects: '',
      tags: '',
      comments: '',
      password: '',
      projectId: 'x',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      comments: null,
      linkObject: { object: null },
      tags: [],
      projectId: t.tenantA.workspaceId,
    });
    expect(res.body.data.key).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(res.body.data.title).toBe(res.body.data.shortLink);
  });

  it('stores an empty objects {} as null (linkObject.object null), as v1 does', async () => {
    const res = await create({ url: 'https://example.com/o', objects: '{}' });
    expect(res.body.data.linkObject).toEqual({ object: null });
    const withNull = await create({ url: 'https://example.com/o', objects: 'null' });
    expect(withNull.body.data.linkObject).toEqual({ object: null });
  });
});

describe('POST /api/mobile/link/create: field rules (400 {success:false,msg})', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['url missing', {}, /^url is required$/],
    ['url not http(s)', { url: 'javascript:alert(1)' }, /url must be an absolute http/],
    ['url ftp', { url: 'ftp://example.com/x' }, /url must be an absolute http/],
    ['url relative', { url: '/just/a/path' }, /url must be an absolute http/],
    ['url too long', { url: `https://example.com/${'a'.repeat(2048)}` }, /url must be at most 2048/],
    ['slug alphabet', { url: 'https://a.com', slug: 'has space' }, /slug may contain only/],
    ['slug dot at end', { url: 'https://a.com', slug: 'bad.' }, /slug may contain only/],
    ['slug reserved', { url: 'https://a.com', slug: 'API' }, /slug is a reserved word/],
    ['slug reserved .well-known', { url: 'https://a.com', slug: '.well-known' }, /slug/],
    ['slug too long', { url: 'https://a.com', slug: 'a'.repeat(101) }, /slug must be at most 100/],
    ['title too long', { url: 'https://a.com', title: 't'.repeat(256) }, /title must be at most 255/],
    ['comments too long', { url: 'https://a.com', comments: 'c'.repeat(1001) }, /comments must be at most 1000/],
    ['password too long', { url: 'https://a.com', password: 'p'.repeat(129) }, /password must be at most 128/],
    ['objects not JSON', { url: 'https://a.com', objects: '{not json' }, /^objects must be a serialized JSON object$/],
    ['objects an array', { url: 'https://a.com', objects: '[1,2]' }, /^objects must be a serialized JSON object$/],
    ['objects a string', { url: 'https://a.com', objects: '"x"' }, /^objects must be a serialized JSON object$/],
    [
      'objects over 16 KiB',
      { url: 'https://a.com', objects: JSON.stringify({ big: 'x'.repeat(17 * 1024) }) },
      /objects must be at most 16384 bytes/,
    ],
    ['tags not JSON', { url: 'https://a.com', tags: 'a,b' }, /^tags must be a serialized JSON array of strings$/],
    ['tags not strings', { url: 'https://a.com', tags: '[1]' }, /^tags must be a serialized JSON array of strings$/],
    [
      'tags an object',
      { url: 'https://a.com', tags: '{"a":"b"}' },
      /^tags must be a serialized JSON array of strings$/,
    ],
    ['tags empty name', { url: 'https://a.com', tags: '["ok","  "]' }, /tags\.1 must not be empty/],
    [
      'tag name too long',
      { url: 'https://a.com', tags: JSON.stringify(['n'.repeat(51)]) },
      /tags\.0 must be at most 50/,
    ],
    [
      'too many tags',
      { url: 'https://a.com', tags: JSON.stringify(Array.from({ length: 21 }, (_, i) => `t${i}`)) },
      /tags at most 20 tags/,
    ],
  ];
  it.each(cases)('%s', async (_name, fields, msg) => {
    const res = await create(fields);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid(msg));
  });

  it('names every bad field at once', async () => {
    const res = await create({ url: 'nope', slug: 'v1', title: 't'.repeat(300) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/url .*; slug .*; title /);
  });
});

describe('POST /api/mobile/link/create: the slug table row and the body rules', () => {
  it('answers 200 {success:false,msg:"slug already exists"} for a taken slug, on either domain user', async () => {
    const first = await create({ url: 'https://example.com/1', slug: 'taken-legacy' });
    expect(first.status).toBe(200);
    const again = await create({ url: 'https://example.com/2', slug: 'taken-legacy' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: false, msg: 'slug already exists' });
    // Taken through v1 counts too.
    await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://a.com', domain: t.tenantA.domain, key: 'taken-by-v1' },
    });
    expect((await create({ url: 'https://a.com', slug: 'taken-by-v1' })).body).toEqual({
      success: false,
      msg: 'slug already exists',
    });
  });

  it('refuses a body that is not multipart/form-data (JSON, urlencoded, none)', async () => {
    const json = await http(t.baseUrl, 'POST', CREATE, { headers: mobile(), json: { url: 'https://a.com' } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ success: false, msg: 'Content-Type must be multipart/form-data' });
    const urlencoded = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=https%3A%2F%2Fa.com',
    });
    expect(urlencoded.body).toEqual({ success: false, msg: 'Content-Type must be multipart/form-data' });
    const none = await http(t.baseUrl, 'POST', CREATE, { headers: mobile() });
    expect(none.status).toBe(400);
    expect(none.body.success).toBe(false);
  });

  it('refuses malformed multipart: no boundary, unterminated body, garbage', async () => {
    const body = multipartText('XyZ', [{ name: 'url', value: 'https://a.com' }]);
    const noBoundary = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'multipart/form-data' },
      body,
    });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body).toEqual({ success: false, msg: 'The multipart/form-data Content-Type has no boundary' });
    const cut = multipartText('XyZ', [{ name: 'url', value: 'https://a.com' }], false);
    const unterminated = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: cut,
    });
    expect(unterminated.status).toBe(400);
    expect(unterminated.body).toEqual({ success: false, msg: 'The multipart/form-data body is malformed' });
    const garbage = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: 'hello there',
    });
    expect(garbage.status).toBe(400);
    expect(garbage.body.success).toBe(false);
  });

  it('accepts a hand-built body (quoted boundary, UTF-8 values)', async () => {
    const body = multipartText('b-1', [
      { name: 'url', value: 'https://example.com/ü' },
      { name: 'title', value: 'Grüße 🎉' },
    ]);
    const res = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'multipart/form-data; boundary="b-1"' },
      body,
    });
    expect(res.status).toBe(200);
    // The URL is answered as a URI: its non-ASCII path percent-encoded.
    expect(res.body.data).toMatchObject({ url: 'https://example.com/%C3%BC', title: 'Grüße 🎉' });
  });

  it('refuses file uploads, repeated fields and oversized bodies', async () => {
    const file = await create({ url: 'https://a.com', objects: new Blob(['{"a":1}'], { type: 'application/json' }) });
    expect(file.status).toBe(400);
    expect(file.body).toEqual({ success: false, msg: 'File uploads are not accepted (part objects)' });
    const twice = multipartText('XyZ', [
      { name: 'url', value: 'https://a.com' },
      { name: 'url', value: 'https://b.com' },
    ]);
    const repeated = await http(t.baseUrl, 'POST', CREATE, {
      headers: { ...mobile(), 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: twice,
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body).toEqual({ success: false, msg: 'The form field url is sent more than once' });
    const huge = await create({ url: 'https://a.com', comments: 'x'.repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ success: false, msg: 'The body is larger than 1048576 bytes' });
  });
});

describe('POST /api/mobile/link/create: api-key rows', () => {
  it('no api-key: 400 {success:false,msg} (as POST deeplink), before the form is read', async () => {
    const res = await postForm(t.baseUrl, CREATE, { url: 'https://a.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, msg: 'API key is required' });
    const emptyAndJson = await http(t.baseUrl, 'POST', CREATE, { headers: { 'api-key': '' }, json: {} });
    expect(emptyAndJson.body).toEqual({ success: false, msg: 'API key is required' });
  });

  it('unknown, revoked or other-kind key: 404 "no workspace found, check the key"', async () => {
    const notFound = { success: false, msg: 'No workspace found, please check the API key' };
    const extra = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    await apiKeyRepository.revoke(hashApiKey(extra.mobileKey));
    for (const key of [
      'mk_unknown',
      'x'.repeat(600),
      extra.mobileKey,
      t.tenantA.serverKey,
      t.tenantA.deepLinkApp.appKey,
      t.tenantA.publishableKeys.ios.key,
    ]) {
      const res = await create({ url: 'https://a.com' }, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
  });

  it('a workspace without a verified primary short-link domain: 400 msg (documented), not a 500', async () => {
    const extra = await bootstrapTenant({ baseUrl: t.baseUrl, edgeUrl: t.edgeUrl });
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.domain(extra.workspaceId, extra.domainId),
        UpdateExpression: 'SET #p = :f',
        ExpressionAttributeNames: { '#p': 'primary' },
        ExpressionAttributeValues: { ':f': false },
      }),
    );
    expect((await domainRepository.findById(extra.workspaceId, extra.domainId))?.primary).toBe(false);
    const res = await create({ url: 'https://a.com' }, extra.mobileKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, msg: 'The workspace has no verified primary short-link domain' });
  });
});

describe('GET /api/mobile/link?shortLink= (legacy retrieve with the mobile key)', () => {
  it('returns the legacy shape with projectId, the same as create returned', async () => {
    const created = (
      await create({ url: 'https://example.com/get', tags: '["get"]', objects: '{"k":"v"}', comments: 'c' })
    ).body.data;
    const res = await getLink(created.shortLink);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body).toEqual({ success: true, data: created });
    // Upper-case host, http scheme, trailing query are tolerated: the URL names domain + key.
    const loose = await getLink(`http://${t.tenantA.domain.toUpperCase()}/${created.key}?utm_source=x`);
    expect(loose.body.data.id).toBe(created.id);
  });

  it('no api-key: 400 {success:false,error} (as GET deeplink); unknown or other-kind key: 404 msg', async () => {
    const created = (await create({ url: 'https://example.com/k' })).body.data;
    const missing = await getLink(created.shortLink, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, error: 'Header api-key is required' });
    for (const key of ['mk_nope', t.tenantA.serverKey, t.tenantA.deepLinkApp.appKey]) {
      const res = await getLink(created.shortLink, mobile(key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, msg: 'No workspace found, please check the API key' });
    }
  });

  it('missing or empty shortLink: 400 error; not a URL: 400 error', async () => {
    for (const shortLink of [undefined, '', '   ']) {
      const res = await getLink(shortLink);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'shortLink is required' });
    }
    for (const shortLink of ['abc123', 'ftp://x.com/abc', 'javascript:alert(1)']) {
      const res = await getLink(shortLink);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'shortLink must be the full short-link URL' });
    }
  });

  it('no such link, another workspace\'s link, a deep link or a nested path: 404 "requested link could not be found"', async () => {
    const mine = (await create({ url: 'https://example.com/mine' })).body.data;
    const theirs = (await create({ url: 'https://example.com/theirs' }, t.tenantB.mobileKey)).body.data;
    const deep = await createDeepLink(t.tenantA.workspaceId, { deepLinkAppId: t.tenantA.deepLinkApp.id }, TEST_ORIGIN);
    const notFound = { success: false, msg: 'requested link could not be found' };
    for (const shortLink of [
      `https://${t.tenantA.domain}/zzzzzz-none`,
      `https://${t.tenantA.domain}/`,
      `https://${t.tenantA.domain}/${mine.key}/more`,
      `https://unknown.example/${mine.key}`,
      theirs.shortLink,
      deep.shortLink,
    ]) {
      const res = await getLink(shortLink);
      expect(res.status, shortLink).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    expect((await getLink(theirs.shortLink, mobile(t.tenantB.mobileKey))).body.data.id).toBe(theirs.id);
  });
});

describe('the same links: legacy creates are v1 links and count in analytics', () => {
  it('moves the counters of a legacy link through recordClick, visible in v1', async () => {
    const created = (await create({ url: 'https://example.com/counted' })).body.data;
    const clicked = {
      workspaceId: t.tenantA.workspaceId,
      linkId: created.id,
      linkType: 'SHORTLINK',
      deepLinkAppId: null,
      domain: created.domain,
      key: created.key,
      tracking: null,
    };
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
    await recordClick({
      link: clicked,
      userAgent: iphone,
      ip: '203.0.113.1',
      country: 'fr',
      referrer: null,
      resolvedDestinationUrl: created.url,
      responseKind: 'redirect',
    });
    await recordClick({
      link: clicked,
      userAgent: iphone,
      ip: '203.0.113.2',
      country: 'fr',
      referrer: null,
      resolvedDestinationUrl: created.url,
      responseKind: 'redirect',
    });
    await recordClick({
      link: clicked,
      userAgent: 'curl/8.0',
      ip: '203.0.113.3',
      country: null,
      referrer: null,
      resolvedDestinationUrl: null,
      responseKind: 'redirect',
    });
    await t.idle(); // the event stream's consumer moves the counters
    const v1 = await http(t.baseUrl, 'GET', `/v1/links/${created.id}`, { headers: { 'api-key': t.tenantA.serverKey } });
    expect(v1.body.data).toMatchObject({ clicks: 2, botClicks: 1, lastClicked: expect.any(String) });
    // The legacy view is unchanged by clicks (it has no counters) and still resolves.
    expect((await getLink(created.shortLink)).body.data).toEqual(created);
  });
});
