import * as z from './zod-mini';

export const QR_SIZE = { min: 64, max: 2048, default: 512 } as const;
export const QR_MARGIN = { min: 0, max: 16, default: 4 } as const;

const integerIn = (min: number, max: number, fallback: number) =>
  z.pipe(
    z.optional(
      z
        .pipe(z.string().check(z.regex(/^\d{1,5}$/, `must be an integer from ${min} to ${max}`)), z.transform(Number))
        .check(z.refine((n) => n >= min && n <= max, `must be an integer from ${min} to ${max}`)),
    ),
    z.transform((n: number | undefined) => n ?? fallback),
  );

const hexColor = z.optional(z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb')));

/** GET /v1/links/{linkId}/qr and /v1/deep-links/{linkId}/qr query. */
export const qrQuerySchema = z.object({
  format: z.pipe(
    z.optional(z.enum(['svg', 'png'])),
    z.transform((v: 'svg' | 'png' | undefined) => v ?? 'svg'),
  ),
  size: integerIn(QR_SIZE.min, QR_SIZE.max, QR_SIZE.default),
  margin: integerIn(QR_MARGIN.min, QR_MARGIN.max, QR_MARGIN.default),
  ecc: z.pipe(
    z.optional(z.enum(['L', 'M', 'Q', 'H'])),
    z.transform((v: 'L' | 'M' | 'Q' | 'H' | undefined) => v ?? 'M'),
  ),
  color: hexColor,
  background: hexColor,
});

export type QrQuery = z.infer<typeof qrQuerySchema>;
