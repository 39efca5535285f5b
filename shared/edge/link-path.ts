import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { required } from '@shared/util/required';
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

/**
 * The edge's default origin behind CloudFront. A function URL has no router and CloudFront picks
 * an origin by path only, never by method, so one function answers every path of a link domain
 * that is not `/.well-known/*` or the launch-view beacon: `GET`/`HEAD /{key}` (a click),
 * `POST /{key}` (the password form) and anything else (the domain's not-found answer).
 */
export const answerLinkPath = (event: ApiEvent, requestId: string): Promise<ApiResult> => {
  const method = event.requestContext.http.method.toUpperCase();
  const match = KEY_PATH.exec(event.rawPath);
  if (match) {
    // Set on the event itself: the front-door mark (trusted-viewer.ts) belongs to this object.
    event.pathParameters = { ...event.pathParameters, key: decoded(required(match[1], 'the key group of KEY_PATH')) };
    if (method === 'GET' || method === 'HEAD') return handleLinkRequest(event, requestId);
    if (method === 'POST') return handlePasswordSubmit(event, requestId);
  }
  return handleOtherPath(event, requestId);
};
