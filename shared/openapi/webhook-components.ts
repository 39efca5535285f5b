import type { $ZodType } from 'zod/v4/core';
import { eventComponentName, outboundEventSchemas, outboundEventTypes } from '@shared/outbound/event-catalogue';

/** The outbound events' envelopes as components (`LinkCreatedEvent`, ...), from the catalogue's zod schemas. */
export const eventComponents = (): Array<[string, $ZodType]> =>
  outboundEventTypes.map((type) => [eventComponentName(type), outboundEventSchemas[type] as unknown as $ZodType]);

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * OpenAPI 3.1 `webhooks`: what a workspace's endpoint receives (docs/events.md). Signed per the
 * Standard Webhooks specification; any 2xx acknowledges, 410 disables the endpoint.
 */
export const webhooksSection = () =>
  Object.fromEntries(
    outboundEventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `webhook-${type.replaceAll('.', '-').replaceAll('_', '-')}`,
          summary: `${type} delivered to a webhook endpoint`,
          description:
            type === 'link.clicked'
              ? 'Off by default: sent only to endpoints that list link.clicked.'
              : 'Sent to every enabled endpoint of the workspace that subscribes to it.',
          // Not a key: the receiver checks the webhook-signature header (an HMAC of the id,
          // timestamp and body), which OpenAPI's security schemes cannot express.
          security: [],
          parameters: [
            header('webhook-id', 'The event id: the same on every retry and replay (deduplicate by it)'),
            header('webhook-timestamp', 'Unix seconds of this attempt'),
            header(
              'webhook-signature',
              'Space-separated `v1,<base64 HMAC-SHA256>` signatures (two during a secret rotation)',
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventComponentName(type)}` } } },
          },
          responses: {
            '2XX': { description: 'Received; not sent again' },
            '410': { description: 'Gone: the endpoint is disabled' },
            default: { description: 'Retried with exponential backoff for about 27.6 hours, then dead-lettered' },
          },
        },
      },
    ]),
  );
