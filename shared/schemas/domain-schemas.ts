import * as z from './zod-mini';

export const domainIdPathSchema = z.object({ domainId: z.string().check(z.minLength(1), z.maxLength(64)) });
