/**
 * The headers of every edge redirect besides `Location`, one source for the origin
 * (click-response.ts) and the edge function answering hot links (hot-links/edge-answer.ts).
 * Never cached anywhere, so every click reaches the edge and is counted.
 */
export const REDIRECT_CACHE_CONTROL = 'private, max-age=0';
export const REDIRECT_REFERRER_POLICY = 'strict-origin-when-cross-origin';
