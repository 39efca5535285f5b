import { describe, expect, it } from 'vitest';
import {
  CLICK_TOKEN_MAX_AGE_S,
  readClickToken,
  signClickToken,
  verifyClickToken,
  type ClickTokenClaims,
} from '@shared/conversions/click-token';
import { decideClick, outcomeOf, type ClickFacts } from '@shared/edge/click-decision';
import { conversionsWanted } from '@shared/edge/conversion-token';
import { parseEdgeRequest } from '@shared/edge/edge-request';
import type { ApiEvent } from '@shared/http/api-types';
import { redirectRecord } from '@test/support/redirect-record';

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SECRET = 'secret-of-ws_1';
const NOW = new Date('2026-01-01T00:00:00Z');
const claims: ClickTokenClaims = {
  clickId: '0b4f7a52-2d4c-4a57-9a51-6c1f3a1e0c11',
  linkId: 'lnk_1',
  workspaceId: 'ws_1',
  issuedAt: NOW.getTime() / 1000,
};

const request = (userAgent: string, method = 'GET') =>
  parseEdgeRequest(
    {
      headers: { host: 'go.example.com', 'user-agent': userAgent },
      rawPath: '/k',
      rawQueryString: '',
      requestContext: { http: { method, sourceIp: '198.51.100.1' }, domainName: 'x' },
    } as unknown as ApiEvent,
    'k',
  );

const facts = (over: Partial<ClickFacts> = {}): ClickFacts => ({
  request: request(DESKTOP),
  host: { hostname: 'go.example.com', workspaceId: 'ws_1', domainId: 'dom_1', appId: null, alternate: false },
  key: 'k',
  record: redirectRecord({ trackConversions: true, tracking: { utmSource: 'news' } }),
  unlocked: false,
  now: NOW,
  conversions: { param: 'lsid', secret: SECRET },
  ...over,
});

const ids = () => {
  let n = 0;
  return () => `id-${String(++n)}`;
};
const decide = (f: ClickFacts) => decideClick(f, outcomeOf(f), undefined, ids());

describe('click tokens', () => {
  it('verify with the signing workspace and secret, and carry the click, link, workspace and time', () => {
    const token = signClickToken(claims, SECRET);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(verifyClickToken(token, 'ws_1', SECRET, NOW)).toEqual({ ok: true, claims });
    expect(readClickToken(token)).toEqual(claims);
  });

  it('refuse a forged signature, a changed payload, another workspace, a workspace without a secret', () => {
    const token = signClickToken(claims, SECRET);
    expect(verifyClickToken(signClickToken(claims, 'another secret'), 'ws_1', SECRET, NOW)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const [, , signature] = token.split('.');
    const otherLink = Buffer.from(`${claims.clickId}|lnk_2|ws_1|${String(claims.issuedAt)}`).toString('base64url');
    expect(verifyClickToken(`v1.${otherLink}.${signature ?? ''}`, 'ws_1', SECRET, NOW)).toMatchObject({
      reason: 'bad_signature',
    });
    const foreign = signClickToken({ ...claims, workspaceId: 'ws_2' }, 'secret-of-ws_2');
    expect(verifyClickToken(foreign, 'ws_1', SECRET, NOW)).toMatchObject({ reason: 'other_workspace' });
    expect(verifyClickToken(token, 'ws_1', undefined, NOW)).toMatchObject({ reason: 'unknown_workspace' });
  });

  it('refuse a token older than 90 days or issued in the future, and anything that is not a token', () => {
    const old = signClickToken({ ...claims, issuedAt: claims.issuedAt - CLICK_TOKEN_MAX_AGE_S - 1 }, SECRET);
    expect(verifyClickToken(old, 'ws_1', SECRET, NOW)).toMatchObject({ reason: 'expired' });
    const lastDay = signClickToken({ ...claims, issuedAt: claims.issuedAt - CLICK_TOKEN_MAX_AGE_S }, SECRET);
    expect(verifyClickToken(lastDay, 'ws_1', SECRET, NOW)).toMatchObject({ ok: true });
    const future = signClickToken({ ...claims, issuedAt: claims.issuedAt + 3600 }, SECRET);
    expect(verifyClickToken(future, 'ws_1', SECRET, NOW)).toMatchObject({ reason: 'expired' });
    for (const junk of ['', 'v1', 'v1.abc', 'v2.a.b', 'v1.a.b.c', `v1.${Buffer.from('a|b').toString('base64url')}.x`])
      expect(verifyClickToken(junk, 'ws_1', SECRET, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe("the click decision's conversion step", () => {
  it("a human's redirect on a tracked link gets the token in the parameter; the click records its click id, not the token", () => {
    const { answer, recording } = decide(facts());
    expect(answer.kind).toBe('redirect');
    const destination = new URL((answer as { destination: string }).destination);
    expect(destination.searchParams.get('utm_source')).toBe('news');
    const token = destination.searchParams.get('lsid') ?? '';
    const check = verifyClickToken(token, 'ws_1', SECRET, NOW);
    expect(check).toEqual({ ok: true, claims: { ...claims, clickId: 'id-1' } });
    expect(recording).toMatchObject({ ids: { clickId: 'id-1' } });
    expect(recording?.resolvedDestinationUrl).toBe('https://example.com/a?utm_source=news');
  });

  it("uses the workspace's parameter name and replaces one the destination already has", () => {
    const { answer } = decide(
      facts({
        conversions: { param: 'click', secret: SECRET },
        record: redirectRecord({ trackConversions: true, url: 'https://example.com/a?click=stale&x=1' }),
      }),
    );
    const destination = new URL((answer as { destination: string }).destination);
    expect(destination.searchParams.getAll('click')).toHaveLength(1);
    expect(destination.searchParams.get('click')).toMatch(/^v1\./);
    expect(destination.searchParams.get('x')).toBe('1');
  });

  it("a deep link's desktop redirect signs the tap's click id", () => {
    const { answer, recording } = decide(
      facts({ record: redirectRecord({ trackConversions: true, linkType: 'DEEPLINK', deepLinkAppId: 'app_1' }) }),
    );
    const token = new URL((answer as { destination: string }).destination).searchParams.get('lsid') ?? '';
    expect(readClickToken(token)?.clickId).toBe(recording?.ids?.clickId);
    expect(recording?.tap?.ids.clickId).toBe(recording?.ids?.clickId);
  });

  it('no signing (not tracked), or a destination that is not a web page: no token, no click id', () => {
    expect(decide(facts({ conversions: undefined })).answer).toEqual({
      kind: 'redirect',
      destination: 'https://example.com/a?utm_source=news',
      status: 302,
    });
    const app = decide(facts({ record: redirectRecord({ trackConversions: true, url: 'myapp://open' }) }));
    expect(app.answer).toMatchObject({ destination: 'myapp://open' });
    expect(app.recording?.ids).toBeUndefined();
  });

  it("is wanted for a human's redirect on a link or domain that tracks conversions; never for bots or HEAD", () => {
    const tracked = facts();
    expect(conversionsWanted(tracked, outcomeOf(tracked))).toBe(true);
    const byDomain = facts({
      record: redirectRecord(),
      host: { ...tracked.host, trackConversions: true },
    });
    expect(conversionsWanted(byDomain, outcomeOf(byDomain))).toBe(true);
    const off = facts({ record: redirectRecord() });
    expect(conversionsWanted(off, outcomeOf(off))).toBe(false);
    const bot = facts({ request: request(BOT) });
    expect(conversionsWanted(bot, outcomeOf(bot))).toBe(false);
    const head = facts({ request: request(DESKTOP, 'HEAD') });
    expect(conversionsWanted(head, outcomeOf(head))).toBe(false);
    const locked = facts({ record: redirectRecord({ trackConversions: true, passwordHash: 'x' }) });
    expect(conversionsWanted(locked, outcomeOf(locked))).toBe(false);
  });
});
