import { describe, expect, it } from 'vitest';
import { createContractChecker, type ContractAnswer } from '@test/support/openapi-contract';

/*
 * The contract check the end-to-end tests run on every answer of the service API
 * (test/support/openapi-contract-setup.ts): what it accepts and what it refuses.
 */

const checker = createContractChecker();
const now = '2026-01-01T00:00:00.000Z';
const link = {
  id: 'lnk_1',
  title: '',
  url: 'https://example.com/a',
  desktopOverrideUrl: null,
  androidOverrideUrl: null,
  iosOverrideUrl: null,
  domain: 'go.example.com',
  key: 'abc',
  shortLink: 'https://go.example.com/abc',
  expiresAt: null,
  expiredUrl: null,
  passwordProtected: false,
  clicks: 0,
  botClicks: 0,
  lastClicked: null,
  lastBotClickedAt: null,
  comments: null,
  createdAt: now,
  updatedAt: now,
  linkType: 'SHORTLINK',
  archived: false,
  deepLinkAppId: null,
  objects: null,
  tags: [],
  tracking: {},
  socialPreview: {},
  geo: null,
  rules: null,
  variants: null,
  trackConversions: false,
};
const json = (method: string, path: string, status: number, body: unknown): ContractAnswer => ({
  method,
  path,
  status,
  headers: { 'Content-Type': 'application/json; charset=utf-8' },
  body: JSON.stringify(body),
});
const envelope = (data: unknown) => ({ success: true, data, requestId: 'req_1' });
const error = (code: string) => ({ success: false, error: { code, message: 'm' }, requestId: 'req_1' });

describe('OpenAPI contract check', () => {
  it('accepts answers as documented: a link, a page, an error with a listed code, a QR image, the catch-all', () => {
    expect(checker.check(json('GET', '/v1/links/lnk_1', 200, envelope(link)))).toEqual([]);
    expect(
      checker.check(
        json('GET', '/v1/links/', 200, {
          ...envelope([link]),
          pagination: { limit: 25, hasMore: false, nextCursor: null },
        }),
      ),
    ).toEqual([]);
    expect(checker.check(json('DELETE', '/v1/links/lnk_1', 404, error('not_found')))).toEqual([]);
    const png = { method: 'GET', path: '/v1/links/lnk_1/qr', status: 200, headers: { 'content-type': 'image/png' } };
    expect(checker.check({ ...png, body: 'iVBORw0KGgo=', base64: true })).toEqual([]);
    expect(checker.check(json('GET', '/v1/nothing-here', 404, error('not_found')))).toEqual([]);
    // The client routes' preflight: `{proxy}` stands for the rest of the path.
    const preflight = { method: 'OPTIONS', status: 204, headers: {}, body: '' };
    expect(checker.check({ ...preflight, path: '/v1/client/attribution/click' })).toEqual([]);
  });

  it('refuses a field the schema does not have, a missing one, a wrong type, a URL that is no URI', () => {
    const [extra] = checker.check(json('GET', '/v1/links/lnk_1', 200, envelope({ ...link, secret: 'x' })));
    expect(extra).toMatch(/links-get 200: \/data must NOT have additional properties.*secret/);
    const { clicks: _clicks, ...withoutClicks } = link;
    expect(checker.check(json('GET', '/v1/links/lnk_1', 200, envelope(withoutClicks)))).toEqual([
      "links-get 200: /data must have required property 'clicks'",
    ]);
    expect(checker.check(json('GET', '/v1/links/lnk_1', 200, envelope({ ...link, clicks: '0' })))).toEqual([
      'links-get 200: /data/clicks must be integer',
    ]);
    expect(
      checker.check(json('GET', '/v1/links/lnk_1', 200, envelope({ ...link, url: 'https://example.com/caf\u00e9' }))),
    ).toEqual(['links-get 200: /data/url must match format "uri"']);
    expect(checker.check(json('GET', '/v1/links/lnk_1', 200, { ...envelope(link), debug: true }))[0]).toMatch(
      /must NOT have additional properties.*debug/,
    );
  });

  it('refuses a status the operation does not list, and an error code its status does not carry', () => {
    expect(checker.check(json('GET', '/v1/links', 404, error('not_found')))).toEqual([
      'links-list (GET /v1/links) does not document status 404 (it lists 200, 400, 401, 403, 413, 429, 500)',
    ]);
    expect(checker.check(json('GET', '/v1/links/lnk_1', 404, error('slug_taken')))[0]).toMatch(
      /links-get 404: \/error\/code must be equal to one of the allowed values.*not_found/,
    );
    // A function failure answers the gateway's {message}, not the envelope: a 500 is a bug.
    expect(checker.check(json('GET', '/v1/links/lnk_1', 500, { message: 'Internal Server Error' }))).not.toEqual([]);
  });

  it('refuses an undocumented media type, a body where none is documented, an unknown route answered 200', () => {
    expect(
      checker.check({
        method: 'GET',
        path: '/v1/links/lnk_1/qr',
        status: 200,
        headers: { 'content-type': 'image/gif' },
        body: 'R0lGOD',
      }),
    ).toEqual(['status 200 documents image/svg+xml, image/png, not image/gif']);
    expect(
      checker.check({ method: 'OPTIONS', path: '/v1/client/resolve', status: 204, headers: {}, body: '{}' }),
    ).toEqual(['status 204 documents no body, and one came']);
    expect(checker.check(json('GET', '/v1/nothing-here', 200, envelope(link)))).toEqual([
      "no documented operation, and the answer is 200, not the catch-all's 404",
    ]);
  });
});
