import { beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { postForm } from '@test/support/legacy-client';
import { IPHONE_UA } from '@test/reliability/route-cases';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

describe('legacy and v1 serve the same links', () => {
  it('a legacy link is edited through v1 PATCH, read back through legacy, redirects on the edge and counts its clicks', async () => {
    const created = await postForm(
      t.baseUrl,
      '/api/mobile/link/create',
      { url: 'https://example.com/legacy', title: 'Legacy', tags: '["old"]' },
      { 'api-key': t.tenantA.mobileKey },
    );
    expect(created.status).toBe(200);
    const { id, key, shortLink } = created.body.data;

    const patched = await http(t.baseUrl, 'PATCH', `/v1/links/${id}`, {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/moved', title: 'Edited in v1', tags: ['new'] },
    });
    expect(patched.status).toBe(200);

    const legacy = await http(t.baseUrl, 'GET', `/api/mobile/link?shortLink=${encodeURIComponent(shortLink)}`, {
      headers: { 'api-key': t.tenantA.mobileKey },
    });
    expect(legacy.body.data).toMatchObject({
      id,
      url: 'https://example.com/moved',
      title: 'Edited in v1',
      projectId: t.tenantA.workspaceId,
    });
    expect(legacy.body.data.tags.map((tag: { tag: { name: string } }) => tag.tag.name)).toEqual(['new']);

    const redirect = await edgeRequest(t.edgeUrl, {
      host: t.tenantA.domain,
      path: `/${key}`,
      headers: { 'user-agent': IPHONE_UA },
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('https://example.com/moved');
    await t.idle(); // the click is recorded after the response
    const v1 = await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: { 'api-key': t.tenantA.serverKey } });
    expect(v1.body.data.clicks).toBe(1);
    const clicks = (await readLakeEvents(t.stack.lakeDir)).filter((e) => e.linkId === id && e.eventType === 'click');
    expect(clicks).toHaveLength(1);
  });

  it('a deep link created through v1 is retrieved through the legacy deeplink route', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/deep-links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { appId: t.tenantA.deepLinkApp.id, title: 'From v1' },
    });
    expect(created.status).toBe(201);
    const legacy = await http(
      t.baseUrl,
      'GET',
      `/api/mobile/deeplink?shortLink=${encodeURIComponent(created.body.data.shortLink)}`,
      { headers: { 'api-key': t.tenantA.deepLinkApp.appKey } },
    );
    expect(legacy.status).toBe(200);
    expect(legacy.body.data).toMatchObject({
      id: created.body.data.id,
      title: 'From v1',
      linkType: 'DEEPLINK',
      deepLinkAppId: t.tenantA.deepLinkApp.id,
    });
  });
});
