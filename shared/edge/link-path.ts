import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { handleLinkRequest, handleOtherPath } from './handle-click';
import { handlePasswordSubmit } from './password-unlock';

/** `/{key}`: one path segment. */
const KEY_PATH = /^\/([^/]+)$/;

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The link key of a `/{key}` path, decoded; null for any other path. */
export const linkKeyOfPath = (rawPath: string): string | null => {
  const segment = KEY_PATH.exec(rawPath)?.[1];
  return segment === undefined ? null : decoded(segment);
};

/**
 * The edge's default origin behind CloudFront. A function URL has no router and CloudFront picks
 * an origin by path only, never by method, so one function answers every path of a link domain
 * that is not `/.well-known/*` or the launch-view beacon: `GET`/`HEAD /{key}` (a click),
 * `POST /{key}` (the password form) and anything else (the domain's not-found answer). The key is
 * handed on with the event, which is left as it came (the front-door mark, trusted-viewer.ts,
 * belongs to that very object).
 */
export const answerLinkPath = (event: ApiEvent, requestId: string): Promise<ApiResult> => {
  const method = event.requestContext.http.method.toUpperCase();
  const key = linkKeyOfPath(event.rawPath);
  if (key !== null) {
    if (method === 'GET' || method === 'HEAD') return handleLinkRequest(event, requestId, key);
    if (method === 'POST') return handlePasswordSubmit(event, requestId, key);
  }
  return handleOtherPath(event, requestId);
};
