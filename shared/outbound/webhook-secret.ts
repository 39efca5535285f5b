import { randomBytes } from 'node:crypto';

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** How long a rotated-out secret keeps signing (second signature in `webhook-signature`). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
