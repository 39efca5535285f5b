import * as z from 'zod';

export const domainIdPathSchema = z.object({ domainId: z.string().min(1).max(64) });
