/** Every `error.code` the v1 API can answer with, and its HTTP status. */
export const errorStatus = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  forbidden: 403,
  client_restriction_failed: 403,
  not_found: 404,
  slug_taken: 409,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  analytics_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];
