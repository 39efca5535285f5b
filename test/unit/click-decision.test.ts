import { describe, expect, it } from 'vitest';
import { decideClick, outcomeOf, type ClickFacts } from '@shared/edge/click-decision';
import { parseEdgeRequest } from '@shared/edge/edge-request';
import type { ApiEvent } from '@shared/http/api-types';
import type { RedirectRecord } from '@shared/links/redirect-record';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import { redirectRecord } from '@test/support/redirect-record';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

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

const deepLink = (over: Partial<RedirectRecord> = {}): RedirectRecord =>
  redirectRecord({ linkType: 'DEEPLINK', deepLinkAppId: 'app_1', ...over });

const app: DeepLinkAppRecord = {
  id: 'app_1',
  workspaceId: 'ws_1',
  name: 'App',
  domainId: 'dom_1',
  domain: 'go.example.com',
  defaultUrl: 'https://example.com',
  ios: { teamId: 'TEAM123456', bundleId: 'com.example.app', appStoreUrl: null },
  android: null,
  createdAt: '',
  updatedAt: '',
};

const facts = (over: Partial<ClickFacts> = {}): ClickFacts => ({
  request: request(IPHONE),
  host: { hostname: 'go.example.com', workspaceId: 'ws_1', domainId: 'dom_1', appId: 'app_1', alternate: false },
  key: 'k',
  record: deepLink(),
  unlocked: false,
  now: new Date('2026-01-01T00:00:00Z'),
  ...over,
});

/** Ids in order, so a decision's ids can be told apart. */
const ids = () => {
  let n = 0;
  return () => `id-${String(++n)}`;
};

/** The decision with the app a launch view reads (`null`: none). */
const decide = (f: ClickFacts, withApp: DeepLinkAppRecord | null = app) =>
  decideClick(f, outcomeOf(f), withApp ?? undefined, ids());

describe('the click decision', () => {
  it("a human tap on a deep link with the app: the launch view, its click id the tap's, the impression recorded", () => {
    const { answer, recording } = decide(facts());
    expect(answer).toMatchObject({ kind: 'launch_view', launch: { platform: 'ios', clickId: 'id-1', app } });
    expect(recording).toMatchObject({
      responseKind: 'launch_view',
      ids: { clickId: 'id-1', attributionId: 'id-2', sessionId: 'id-3' },
      impression: true,
      tap: { platform: 'ios' },
    });
  });

  it('a launch view without its app, or for a platform the app lacks, is a redirect, still attributable', () => {
    for (const decision of [decide(facts(), null), decide(facts(), { ...app, ios: null })]) {
      expect(decision.answer).toEqual({ kind: 'redirect', destination: 'https://example.com/a', status: 302 });
      expect(decision.recording).toMatchObject({ responseKind: 'redirect', tap: { platform: 'ios' } });
    }
  });

  it('HEAD gets the launch view with its own click id, no tap and no impression', () => {
    const { answer, recording } = decide(facts({ request: request(IPHONE, 'HEAD') }));
    expect(answer).toMatchObject({ kind: 'launch_view', launch: { clickId: 'id-1' } });
    expect(recording).toMatchObject({ ids: { clickId: 'id-1' }, impression: false, tap: null });
  });

  it('a human at the password form records nothing; a crawler there is a recorded password click; the right password redirects 303', () => {
    const locked = deepLink({ linkType: 'SHORTLINK', passwordHash: 'h' });
    expect(decide(facts({ record: locked, request: request(DESKTOP) }))).toEqual({
      answer: { kind: 'password' },
      recording: null,
      visitorCookie: null,
    });
    expect(decide(facts({ record: locked, request: request('Twitterbot/1.0') })).recording).toMatchObject({
      responseKind: 'password',
      ids: undefined,
      tap: null,
    });
    expect(decide(facts({ record: locked, request: request(DESKTOP), unlocked: true })).answer).toEqual({
      kind: 'redirect',
      destination: 'https://example.com/a',
      status: 303,
    });
  });

  it('no record: the not-found answer, nothing recorded', () => {
    expect(decide(facts({ record: undefined }))).toEqual({
      answer: { kind: 'not_found', location: null },
      recording: null,
      visitorCookie: null,
    });
  });
});
