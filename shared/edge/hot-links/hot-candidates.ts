import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { liveHumans } from '@shared/clicks/link-counters';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { log } from '@shared/util/logger';
import { HOT_MIN_RECENT_CLICKS, recentHumanClicks } from './hot-set';

/**
 * Set to `true` by the stack on the click counter consumer only with the `edgeHotLinks` context
 * on: the consumer then nominates the links that just turned hot. Unset, it writes nothing more.
 */
export const EDGE_HOT_LINKS_ENV = 'EDGE_HOT_LINKS';

export const edgeHotLinksOn = (): boolean => process.env[EDGE_HOT_LINKS_ENV] === 'true';

/** The hot-set item expires this long after its last write (nothing writes it with the feature off). */
export const HOT_SET_ITEM_TTL_SECONDS = 24 * 3600;

const ttlOf = (now: Date): number => Math.floor(now.getTime() / 1000) + HOT_SET_ITEM_TTL_SECONDS;

/**
 * Whether the clicks one counter update added (`hours`: humans per hour) carried the link across
 * the hot threshold: its human clicks over the last 60 minutes (`recentHumanClicks`, from the
 * `lh#<hour>` counters on `item`, the link item as the update left it) are at least `min` now and
 * were under it before the update. A link already over the threshold is not nominated again.
 */
export const crossedHotThreshold = (
  item: Readonly<Record<string, unknown>>,
  hours: ReadonlyMap<string, { humans: number }>,
  now: Date,
  min = HOT_MIN_RECENT_CLICKS,
): boolean => {
  const after = recentHumanClicks(item, now);
  if (after < min) return false;
  const before: Record<string, unknown> = { ...item };
  for (const [hour, { humans }] of hours) {
    const name = liveHumans(hour);
    const value = item[name];
    before[name] = (typeof value === 'number' ? value : 0) - humans;
  }
  return recentHumanClicks(before, now) < min;
};

/**
 * Adds the links that just turned hot to the hot set's candidates (one UpdateItem, a string set
 * `ADD`: nominations of concurrent batches merge). Nothing is written for no link. A failure is
 * logged, not thrown: the clicks are counted already, and a candidate missed here is only a link
 * answered by the origin a while longer.
 */
export const nominateHotCandidates = async (linkIds: readonly string[], now = new Date()): Promise<boolean> => {
  if (linkIds.length === 0) return false;
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.edgeHotSet(),
        UpdateExpression: 'ADD candidates :ids SET #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':ids': new Set(linkIds), ':ttl': ttlOf(now) },
      }),
    );
    return true;
  } catch (error) {
    log('warn', 'edge hot-link candidates not nominated', { links: linkIds.length, error: String(error) });
    return false;
  }
};

/** The last refresh of the hot set, as it recorded itself. */
export interface HotSetRefreshRecord {
  at: string;
  hot: number;
  candidates: number;
  puts: number;
  deletes: number;
  itemCount: number | null;
  totalSizeInBytes: number | null;
}

export interface HotSetItem {
  /** Links nominated since the last refresh consumed them. */
  candidates: string[];
  lastRefresh: HotSetRefreshRecord | null;
}

/** Reads the hot-set item (strongly consistent: a nomination just written is seen). */
export const readHotSetItem = async (): Promise<HotSetItem> => {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.edgeHotSet(), ConsistentRead: true }),
  );
  const item = out.Item ?? {};
  const candidates = item.candidates instanceof Set ? [...(item.candidates as Set<unknown>)] : [];
  const last = item.lastRefresh as HotSetRefreshRecord | undefined;
  return {
    candidates: candidates.filter((id): id is string => typeof id === 'string').sort(),
    lastRefresh: last && typeof last.at === 'string' ? last : null,
  };
};

/**
 * Records a refresh (its time and figures, for operators) and removes the candidates it read
 * (`DELETE` of exactly those: a nomination written meanwhile stays for the next refresh).
 */
export const recordHotSetRefresh = async (
  record: HotSetRefreshRecord,
  consumed: readonly string[],
  now = new Date(),
): Promise<void> => {
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.edgeHotSet(),
      UpdateExpression: `SET lastRefresh = :r, #ttl = :ttl${consumed.length ? ' DELETE candidates :ids' : ''}`,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':r': record,
        ':ttl': ttlOf(now),
        ...(consumed.length ? { ':ids': new Set(consumed) } : {}),
      },
    }),
  );
};
