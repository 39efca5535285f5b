import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { getAppCached, playStoreUrlWithReferrer } from './app-links';
import { answerClick, visitorKeyOf } from './answer-click';
import { redirectTo } from './click-response';
import { decideOutcome } from './edge-outcome';
import { parseEdgeRequest, type EdgeRequest } from './edge-request';
import { ALTERNATE_LABEL, resolveHost, type ResolvedHost } from './host-resolver';
import { plainNotFound, statusPage } from './html/status-page';
import { edgeReadBudgetMs, fallbackAnswer, ReadBudgetExceededError, withinReadBudget } from './read-budget';
import { LINK_KEY } from './link-key';
import { findRecordOnHost } from './redirect-lookup';
import type { RedirectRecord } from '@shared/links/redirect-record';
import { log } from '@shared/util/logger';

export { LINK_KEY };
const CLICK_ID = /^[0-9a-f-]{36}$/;

export interface KnownHostRequest {
  request: EdgeRequest;
  host: ResolvedHost;
}

/**
 * Parses the request and resolves its host (null: not a domain of any workspace -> plain 404).
 * `pathKey`: the link key of the path, when the caller matched one.
 */
export const knownHostOf = async (event: ApiEvent, pathKey?: string): Promise<KnownHostRequest | null> => {
  const request = parseEdgeRequest(event, pathKey);
  const host = await resolveHost(request.hostname);
  return host ? { request, host } : null;
};

/**
 * The alternate host `open.<app domain>`: iOS reaches it in the browser only when "Open in app"
 * (`?c=<click id>`) did not open the app, so the app is not installed: the App Store (the tap's
 * attribution record is already written, and the app's first open matches it), else the
 * destination. Anything else here (a link shared with the `open.` host, no click id, a
 * password-protected link) is sent to the same link on the app domain, which answers it in full
 * (launch view, password form, the click and its attribution).
 */
const answerOnAlternateHost = async (
  { request, host }: KnownHostRequest,
  key: string,
  record: RedirectRecord | undefined,
): Promise<ApiResult> => {
  const canonical = `${request.origin.replace(`://${ALTERNATE_LABEL}`, '://')}/${encodeURIComponent(key)}`;
  const clickId = request.query.get('c') ?? '';
  if (!CLICK_ID.test(clickId)) return redirectTo(canonical);
  const { client } = request;
  const outcome = decideOutcome({
    host,
    record,
    client: { ...client, isBot: false },
    unlocked: false,
    now: new Date(),
    country: request.country,
    visitor: {
      acceptLanguage: request.acceptLanguage,
      query: request.query,
      ip: request.ip,
      visitorKey: (await visitorKeyOf(request, record, new Date()))?.key ?? null,
    },
  });
  if (outcome.kind === 'not_found' || outcome.kind === 'expired') {
    if (outcome.location) return redirectTo(outcome.location);
    return statusPage(outcome.kind === 'expired' ? 410 : 404);
  }
  if (outcome.kind === 'password' || !record) return redirectTo(canonical);
  const app = host.appId ? await getAppCached(host.workspaceId, host.appId) : undefined;
  const store =
    client.platform === 'ios'
      ? app?.ios?.appStoreUrl
      : client.platform === 'android'
        ? playStoreUrlWithReferrer(app?.android?.playStoreUrl, clickId, record.tracking)
        : null;
  return redirectTo(store ?? outcome.destination);
};

/**
 * GET / HEAD `/{key}` on the edge. The reads before the answer (host, slug item) run within
 * EDGE_READ_BUDGET_MS; past it the visitor gets the domain's fallback answer (read-budget.ts).
 * `pathKey`: the link key of the path (default: the event's `key` path parameter).
 */
export const handleLinkRequest = async (event: ApiEvent, requestId: string, pathKey?: string): Promise<ApiResult> =>
  answerLinkRequest(parseEdgeRequest(event, pathKey), requestId);

const answerLinkRequest = async (request: EdgeRequest, requestId: string): Promise<ApiResult> => {
  const key = request.key ?? '';
  // What was read so far: the host is known when only the slug read ran over budget.
  const read: { host: ResolvedHost | null; record?: RedirectRecord } = { host: null };
  try {
    await withinReadBudget(async (signal) => {
      read.host = await resolveHost(request.hostname, signal);
      if (read.host && LINK_KEY.test(key)) read.record = await findRecordOnHost(read.host, key, signal);
    });
  } catch (error) {
    if (!(error instanceof ReadBudgetExceededError)) throw error;
    log('warn', 'edge reads over budget: fallback answer', {
      requestId,
      hostname: request.hostname,
      budgetMs: edgeReadBudgetMs(),
    });
    return fallbackAnswer(read.host);
  }
  const { host, record } = read;
  if (!host) return plainNotFound();
  if (!LINK_KEY.test(key)) return answerClick({ request, host, key, record: undefined, unlocked: false, requestId });
  if (host.alternate) return answerOnAlternateHost({ request, host }, key, record);
  return answerClick({ request, host, key, record, unlocked: false, requestId });
};

/** Any other edge path: plain 404 for unknown hosts, the domain's not-found answer otherwise. */
export const handleOtherPath = async (event: ApiEvent, requestId: string): Promise<ApiResult> => {
  const known = await knownHostOf(event);
  if (!known) return plainNotFound();
  return answerClick({ ...known, key: '', record: undefined, unlocked: false, requestId });
};
