import { AppError } from '@shared/errors/app-error';
import { PUT_EVENTS_LIMITS, SEND_MESSAGE_BATCH_LIMITS, utf8Bytes } from '@shared/util/byte-batches';
import type { LinkRecord } from './link-record';
import { toLinkResource } from './link-view';

/**
 * Room for what surrounds the Link resource in its outbound event and delivery message: the
 * event's id, type, times and workspace, the delivery's endpoint, the bus entry's source and
 * detail type.
 */
const ENVELOPE_BYTES = 2 * 1024;

/**
 * DynamoDB takes items of at most 400 KB
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html); the
 * record's JSON is an upper bound of its item size.
 */
export const DYNAMODB_ITEM_BYTES = 400 * 1024;

/** The most bytes a link's change event may have: one PutEvents entry and one SQS message. */
export const LINK_EVENT_MAX_BYTES = Math.min(PUT_EVENTS_LIMITS.maxBytes, SEND_MESSAGE_BATCH_LIMITS.maxBytes);

/** About how large a link's change event is (its Link resource plus the envelope). */
export const linkEventBytes = (link: LinkRecord): number =>
  utf8Bytes(JSON.stringify(toLinkResource(link))) + ENVELOPE_BYTES;

/**
 * Refuses (400 `invalid_request`, the limit named) a link too large for the writes that follow
 * it: its item, and its `link.created` / `link.updated` event on the bus and the webhook queue.
 * The field limits keep every valid link well under them; this guard makes sure a link never
 * reaches a batch it would fail whole.
 */
export const assertLinkFits = (link: LinkRecord): void => {
  const eventBytes = linkEventBytes(link);
  if (eventBytes > LINK_EVENT_MAX_BYTES)
    throw new AppError(
      'invalid_request',
      `The link is too large: its change event would be about ${String(eventBytes)} bytes; EventBridge PutEvents and SQS take at most ${String(LINK_EVENT_MAX_BYTES)}`,
      [{ path: '', message: `the link's event must be at most ${String(LINK_EVENT_MAX_BYTES)} bytes` }],
    );
  const itemBytes = utf8Bytes(JSON.stringify(link));
  if (itemBytes > DYNAMODB_ITEM_BYTES)
    throw new AppError(
      'invalid_request',
      `The link is too large: about ${String(itemBytes)} bytes stored; DynamoDB takes items of at most ${String(DYNAMODB_ITEM_BYTES)}`,
      [{ path: '', message: `the link must be at most ${String(DYNAMODB_ITEM_BYTES)} bytes stored` }],
    );
};
