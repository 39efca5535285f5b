import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers, signed by the `standardwebhooks` reference implementation: one
 * `v1,<base64 HMAC-SHA256>` per secret, space-separated, so during a rotation both the new and the
 * old secret verify.
 */
export const signedHeaders = (
  msgId: string,
  timestamp: Date,
  payload: string,
  secrets: string[],
): Record<string, string> => ({
  'webhook-id': msgId,
  'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
  'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, payload)).join(' '),
});
