import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AuthContext } from '@shared/auth/credential';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Lambda context plus what the middleware chain learns about the request. */
export interface ApiContext extends Context {
  requestId: string;
  auth?: AuthContext;
  /** Parsed JSON body (undefined when none was sent). */
  jsonBody?: unknown;
  /** Rate-limit headers of the workspace's budget; the envelope adds them to every answer. */
  rateLimitHeaders?: Record<string, string>;
}

export interface Pagination {
  limit: number;
  nextCursor: string | null;
  hasMore: boolean;
}

/**
 * What a v1 handler returns (`D`: its route's reply data, shared/routes/typed-route.ts); the v1
 * handler wraps it in the success envelope.
 */
export interface ApiReply<D = unknown> {
  status: number;
  data?: D;
  pagination?: Pagination;
  headers?: Record<string, string>;
  /** `Set-Cookie` values (the console's session cookie), as API Gateway's payload 2.0 `cookies`. */
  cookies?: string[];
  /** A non-JSON body (QR images): sent as is instead of the envelope; errors still use the envelope. */
  raw?: { contentType: string; body: string; isBase64Encoded: boolean };
}

export const header = (event: ApiEvent, name: string): string | undefined => {
  const { headers } = event;
  const direct = headers[name.toLowerCase()];
  if (direct !== undefined) return direct;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
};
