import * as z from 'zod';
import { hostnameSchema, httpUrlSchema, linkKeySchema } from '@shared/schemas/common-schemas';

const idSchema = z.string().min(1).max(128);
const optionalId = idSchema.optional();

/** ClientLinkReference (spec 2.9): no field is required here; the resolver decides (DESIGN.md 7). */
export const clientLinkReferenceFields = {
  linkId: z.string().min(1).max(64).optional(),
  shortLink: httpUrlSchema.optional(),
  url: httpUrlSchema.optional(),
  domain: hostnameSchema.optional(),
  key: linkKeySchema.optional(),
  slug: linkKeySchema.optional(),
};
export const clientLinkReferenceSchema = z.object(clientLinkReferenceFields);
export type ClientLinkReference = z.infer<typeof clientLinkReferenceSchema>;

/** Body of `attribution/click`: a ClientLinkReference, plus (extension) the caller's own session / install ids. */
export const clientClickBodySchema = z.object({ ...clientLinkReferenceFields, sessionId: optionalId, installId: optionalId });
export type ClientClickBody = z.infer<typeof clientClickBodySchema>;

/** FirstOpenRequest (spec 2.9); `eventType` defaults to `first_open`. */
export const firstOpenBodySchema = z.object({
  ...clientLinkReferenceFields,
  eventType: z.enum(['first_open', 'install']).default('first_open'),
  attributionId: optionalId,
  clickId: optionalId,
  installId: optionalId,
  sessionId: optionalId,
  deviceId: optionalId,
  anonymousDeviceId: optionalId,
  externalUserId: optionalId,
});
export type FirstOpenBody = z.infer<typeof firstOpenBodySchema>;

export const CUSTOMER_EVENT_NAME = /^[a-zA-Z][a-zA-Z0-9_.:-]{0,63}$/;
export const customerEventLimits = { perRequest: 50, properties: 50, propertyKeyMax: 128, propertyStringMax: 1024 } as const;

const propertyValueSchema = z.union([z.string().max(customerEventLimits.propertyStringMax), z.number().finite(), z.boolean()]);

/** CustomerEvent (spec 2.9): name by pattern, at most 50 properties of string, number or boolean. */
export const customerEventSchema = z.object({
  name: z.string().regex(CUSTOMER_EVENT_NAME, 'must match ^[a-zA-Z][a-zA-Z0-9_.:-]{0,63}$'),
  eventId: optionalId,
  linkId: z.string().min(1).max(64).optional(),
  clickId: optionalId,
  attributionId: optionalId,
  sessionId: optionalId,
  installId: optionalId,
  externalUserId: optionalId,
  properties: z
    .record(z.string().min(1).max(customerEventLimits.propertyKeyMax), propertyValueSchema)
    .refine((p) => Object.keys(p).length <= customerEventLimits.properties, `at most ${customerEventLimits.properties} properties`)
    .optional(),
});
export type CustomerEvent = z.infer<typeof customerEventSchema>;

export const customerEventsBodySchema = z.object({
  events: z
    .array(customerEventSchema)
    .min(1, 'at least 1 event')
    .max(customerEventLimits.perRequest, `at most ${customerEventLimits.perRequest} events`),
});
export type CustomerEventsBody = z.infer<typeof customerEventsBodySchema>;
