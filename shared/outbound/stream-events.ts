import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { LinkRecord } from '@shared/links/link-record';
import { linkEvent } from './event-builders';
import type { OutboundEvent } from './event-catalogue';

/** What one stream record asks for: an event to publish, or a replay of one event to one endpoint. */
export type StreamWork =
  { kind: 'publish'; event: OutboundEvent } | { kind: 'replay'; endpointId: string; event: OutboundEvent };

type Image = Record<string, unknown>;
const imageOf = (image: Record<string, unknown> | undefined): Image | undefined =>
  image ? unmarshall(image as Record<string, SdkAttributeValue>) : undefined;

const COUNTERS = new Set(['clicks', 'botClicks', 'lastClicked', 'lastBotClickedAt']);

/** Which link event a change of the LINK item is; undefined when it is none (no visible change). */
const linkChange = (name: string | undefined, before: Image | undefined, after: Image | undefined) => {
  if (name === 'INSERT' && after) return { type: 'link.created' as const, occurredAt: String(after.createdAt) };
  if (name !== 'MODIFY' || !before || !after) return undefined;
  if (before.archived !== after.archived) {
    return {
      type: after.archived ? ('link.archived' as const) : ('link.restored' as const),
      occurredAt: String(after.updatedAt),
    };
  }
  if (before.updatedAt !== after.updatedAt)
    return { type: 'link.updated' as const, occurredAt: String(after.updatedAt) };
  const counted = Object.keys({ ...before, ...after }).some((k) => COUNTERS.has(k) && before[k] !== after[k]);
  if (counted) {
    const at = before.clicks !== after.clicks ? after.lastClicked : after.lastBotClickedAt;
    return { type: 'link.clicked' as const, occurredAt: typeof at === 'string' ? at : new Date().toISOString() };
  }
  return undefined;
};

/**
 * Turns one record of the table's stream (NEW_AND_OLD_IMAGES) into outbound work. The stream
 * holds only committed writes, so nothing here can announce a change that failed. Link ids come
 * from the stream record's own id, so a retried batch yields the same event ids.
 */
export const streamWorkOf = (record: DynamoDBRecord): StreamWork | undefined => {
  const after = imageOf(record.dynamodb?.NewImage);
  const before = imageOf(record.dynamodb?.OldImage);
  const sk = (after ?? before)?.sk;
  if (sk === 'LINK') {
    const change = linkChange(record.eventName, before, after);
    // A change is only found with the new image there.
    if (!change || !after) return undefined;
    const { pk: _pk, sk: _sk, type: _t, gsi1pk: _1, gsi1sk: _2, ...link } = after;
    return {
      kind: 'publish',
      event: linkEvent(
        change.type,
        link as unknown as LinkRecord,
        record.eventID ?? `${change.type}:${change.occurredAt}`,
        change.occurredAt,
      ),
    };
  }
  if (sk === 'OUTBOX' && record.eventName === 'INSERT' && after?.event)
    return { kind: 'publish', event: after.event as OutboundEvent };
  if (sk === 'REPLAY' && (record.eventName === 'INSERT' || record.eventName === 'MODIFY') && after?.event) {
    return { kind: 'replay', endpointId: String(after.endpointId), event: after.event as OutboundEvent };
  }
  return undefined;
};
