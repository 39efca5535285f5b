import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
export const hmacBase64Url = (secret: string, text: string) =>
  createHmac('sha256', secret).update(text).digest('base64url');

/** Constant-time string comparison (false on length mismatch without early exit on content). */
export const safeEqual = (a: string, b: string): boolean => {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
};
