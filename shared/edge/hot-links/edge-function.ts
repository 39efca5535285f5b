// The hot-link viewer-request CloudFront Function (runtime cloudfront-js-2.0), compiled by
// lib/front-door/hot-link-function-code.ts into one file. It answers a GET of a hot link from a
// mainstream browser with the origin's redirect, read from the KeyValueStore associated with the
// function (`cf.kvs()`); every other request goes on to the origin as the plain viewer-request
// function sends it (the viewer's Host copied to x-forwarded-host, which the origin reads).
import cf from 'cloudfront';
import { answerOfEntry, hotKeyOf, isMainstreamBrowser, parseHotEntry } from './edge-answer';

interface HeaderValue {
  value: string;
}

interface ViewerRequest {
  method: string;
  uri: string;
  headers: Record<string, HeaderValue | undefined>;
}

interface ViewerRequestEvent {
  request: ViewerRequest;
}

const kvs = cf.kvs();

/** What the origin gets: the viewer's Host copied to x-forwarded-host (a client's own value is overwritten). */
const toOrigin = (request: ViewerRequest): ViewerRequest => {
  const host = request.headers.host;
  if (host !== undefined && host.value !== '') {
    request.headers['x-forwarded-host'] = { value: host.value.toLowerCase() };
  } else {
    delete request.headers['x-forwarded-host'];
  }
  return request;
};

const valueOf = (header: HeaderValue | undefined): string | null => (header === undefined ? null : header.value);

export async function handler(event: ViewerRequestEvent) {
  const request = event.request;
  const storeKey = hotKeyOf({
    method: request.method,
    host: valueOf(request.headers.host),
    uri: request.uri,
    userAgent: valueOf(request.headers['user-agent']),
  });
  if (storeKey === null || !isMainstreamBrowser(valueOf(request.headers['user-agent']))) return toOrigin(request);
  let text: string | null;
  try {
    text = await kvs.get(storeKey);
  } catch {
    // A key not in the store: not hot (or not eligible); the origin answers.
    text = null;
  }
  const entry = text === null ? null : parseHotEntry(text);
  const answer = entry === null ? null : answerOfEntry(entry, Date.now());
  if (answer === null) return toOrigin(request);
  return {
    statusCode: answer.statusCode,
    statusDescription: 'Found',
    headers: {
      location: { value: answer.headers.location },
      'cache-control': { value: answer.headers['cache-control'] },
      'referrer-policy': { value: answer.headers['referrer-policy'] },
    },
  };
}
