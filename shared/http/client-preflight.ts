import { isKnownBrowserOrigin } from '@shared/auth/browser-origins';
import { normalizeOrigin } from '@shared/auth/publishable-restrictions';
import { log } from '@shared/util/logger';
import { header, type ApiEvent, type ApiResult } from './api-types';
import { CLIENT_ALLOWED_HEADERS, corsHeadersFor } from './middleware/client-cors';

export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS preflight of `/v1/client/*`. A preflight carries no key, only `Origin`, so it is allowed
 * for origins that some browser publishable key lists (the origin index); the actual request
 * then echoes the origin only when it is among that key's own origins. Any other origin gets a
 * 204 without CORS headers, which the browser treats as a refusal.
 */
export const answerClientPreflight = async (event: ApiEvent): Promise<ApiResult> => {
  const refused: ApiResult = { statusCode: 204, headers: { Vary: 'Origin' } };
  const origin = normalizeOrigin(header(event, 'origin'));
  if (!origin) return refused;
  try {
    if (!(await isKnownBrowserOrigin(origin))) return refused;
  } catch (error) {
    log('error', 'CORS preflight: origin lookup failed', { error: (error as Error).message });
    return refused;
  }
  return {
    statusCode: 204,
    headers: {
      ...corsHeadersFor(origin),
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': CLIENT_ALLOWED_HEADERS,
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    },
  };
};
