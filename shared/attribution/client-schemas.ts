import { hostnameSchema, httpUrlAsSentSchema, linkKeySchema } from '@shared/schemas/common-schemas';
import * as z from '@shared/schemas/zod-mini';

const idSchema = z.string().check(z.minLength(1), z.maxLength(128));
const optionalId = z.optional(idSchema);
const optionalLinkId = z.optional(z.string().check(z.minLength(1), z.maxLength(64)));

/** A short link given to name a link: either form names it (scheme and port are not compared). */
const shortLinkReference = z.optional(httpUrlAsSentSchema);
z.globalRegistry.add(shortLinkReference, {
  description:
    'A short link: `https://{domain}/{key}`, or on the local stack the `http://{domain}:{edge port}/{key}` it answers with.',
});

/**
 * ClientLinkReference: no field is required here; the resolver decides (linkId, else shortLink or
 * its alias url, else domain and key or its alias slug).
 */
export const clientLinkReferenceFields = {
  linkId: optionalLinkId,
  shortLink: shortLinkReference,
  url: shortLinkReference,
  domain: z.optional(hostnameSchema),
  key: z.optional(linkKeySchema),
  slug: z.optional(linkKeySchema),
};
export const clientLinkReferenceSchema = z.object(clientLinkReferenceFields);
export type ClientLinkReference = z.infer<typeof clientLinkReferenceSchema>;

/** Body of `attribution/click`: a ClientLinkReference, plus (extension) the caller's own session / install ids. */
export const clientClickBodySchema = z.object({
  ...clientLinkReferenceFields,
  sessionId: optionalId,
  installId: optionalId,
});
export type ClientClickBody = z.infer<typeof clientClickBodySchema>;

/** FirstOpenRequest of the client API; `eventType` defaults to `first_open`. */
export const firstOpenBodySchema = z.object({
  ...clientLinkReferenceFields,
  eventType: z._default(z.enum(['first_open', 'install']), 'first_open'),
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
export const customerEventLimits = {
  perRequest: 50,
  properties: 50,
  propertyKeyMax: 128,
  propertyStringMax: 1024,
} as const;

const propertyValueSchema = z.union([
  z.string().check(z.maxLength(customerEventLimits.propertyStringMax)),
  z.number(),
  z.boolean(),
]);

/**
 * The signed click token the edge appended to a tracked link's web destination (`@linkservice/web`
 * sends it): the event is recorded with its click and link once the token verifies.
 */
const clickTokenField = z.optional(z.string().check(z.minLength(1), z.maxLength(512)));
z.globalRegistry.add(clickTokenField, {
  description:
    "Web conversions: the signed click token of the visitor's click (the edge appends it to tracked links' web destinations). It is verified (signature, workspace, at most 90 days old) and gives the event its clickId and linkId; an invalid, foreign or expired token rejects this event (status `rejected`, error `invalid_request`), not the others.",
});

/** CustomerEvent of the client API: name by pattern, at most 50 properties of string, number or boolean. */
export const customerEventSchema = z.object({
  name: z.string().check(z.regex(CUSTOMER_EVENT_NAME, 'must match ^[a-zA-Z][a-zA-Z0-9_.:-]{0,63}$')),
  eventId: optionalId,
  linkId: optionalLinkId,
  clickId: optionalId,
  attributionId: optionalId,
  sessionId: optionalId,
  installId: optionalId,
  externalUserId: optionalId,
  clickToken: clickTokenField,
  properties: z.optional(
    z
      .record(z.string().check(z.minLength(1), z.maxLength(customerEventLimits.propertyKeyMax)), propertyValueSchema)
      .check(
        z.refine(
          (p) => Object.keys(p).length <= customerEventLimits.properties,
          `at most ${customerEventLimits.properties} properties`,
        ),
      ),
  ),
});
export type CustomerEvent = z.infer<typeof customerEventSchema>;

export const customerEventsBodySchema = z.object({
  events: z
    .array(customerEventSchema)
    .check(
      z.minLength(1, 'at least 1 event'),
      z.maxLength(customerEventLimits.perRequest, `at most ${customerEventLimits.perRequest} events`),
    ),
});
export type CustomerEventsBody = z.infer<typeof customerEventsBodySchema>;
