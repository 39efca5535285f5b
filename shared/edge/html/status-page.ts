import type { ApiResult } from '@shared/http/api-types';
import { htmlPage } from './page';

const TEXT: Record<404 | 410 | 500 | 503, [string, string]> = {
  404: ['Link not found', 'This link does not exist or is no longer active.'],
  410: ['Link expired', 'This link has expired.'],
  500: ['Something went wrong', 'We could not open this link. Please try again.'],
  503: ['Try again in a moment', 'This link cannot be opened right now. Please try again in a moment.'],
};

/** The 404 / 410 / 500 / 503 pages of the edge (constant text: nothing from the request is echoed). */
export const statusPage = (status: 404 | 410 | 500 | 503): ApiResult => {
  const [title, message] = TEXT[status];
  return htmlPage({ status, title, body: `<h1>${title}</h1><p>${message}</p>` });
};

/** Unknown host: a plain 404, nothing about the service. */
export const plainNotFound = (): ApiResult => ({
  statusCode: 404,
  headers: {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'private, max-age=0',
    'X-Content-Type-Options': 'nosniff',
  },
  body: 'Not Found',
});
