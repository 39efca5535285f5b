import pLimit from 'p-limit';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { KEPT_FAILURE_DAYS } from '@shared/events/consumer-retention';
import { clicksBucket, clicksBucketStart, clicksSortKey } from '@shared/links/link-index';
import { retry } from '@shared/util/retry';

/**
 * One record of the event stream as the counter consumer sees it: the shard it came from, its
 * sequence number in that shard (Kinesis: a decimal string, increasing within a shard) and the
 * event line. `lakeOnly` records (replays of lake delivery errors, already counted when they
 * first passed) never move a counter.
 */
export interface CounterStreamRecord {
  shardId: string;
  sequenceNumber: string;
  data: string;
  lakeOnly?: boolean;
}

/** A click's hour (UTC, `YYYY-MM-DDTHH`) from its ISO timestamp: the key of its live count on the link. */
export const clickHourOf = (timestamp: string): string => timestamp.slice(0, 13);

/**
 * The link attributes that make the counters converge to the exact distinct count (settled from
 * the de-duplicated lake, settle-click-counters.ts). Invariant of a link item:
 * `clicks = (clicks before day tracking) + sum over days of sh#D + sum over hours of lh#H`
 * (bots alike with sb#/lb#): the consumer adds each batch's clicks to `clicks` and to the live
 * count of their hour (`lh#<hour>`); settling a day replaces the live counts of its closed hours
 * by the exact count of the day's closed hours (`sh#<day>`), moving `clicks` by the difference.
 */
export const liveHumans = (hour: string): string => `lh#${hour}`;
export const liveBots = (hour: string): string => `lb#${hour}`;
export const settledHumans = (day: string): string => `sh#${day}`;
export const settledBots = (day: string): string => `sb#${day}`;
/**
 * When the link's counts started being kept per hour: the first hour counted that way, or
 * `ALL_TRACKED` when every click of the link was (its first count found no earlier click). A day
 * is settled only if every one of its clicks was counted per hour (countsFrom before the day).
 */
export const COUNTS_FROM = 'countsFrom';
export const ALL_TRACKED = '0000';

/**
 * How long a day's settled counts stay on a link (then the day is final, its attributes removed):
 * 14 days, the event spool's longest retention (SQS keeps a message at most 14 days), so a spooled
 * or replayed duplicate of a settled day still finds its day's count. A re-send of an older event
 * is counted live and its hour removed with the next prune: it is not corrected.
 */
export const SETTLED_DAYS = 14;

/** What one batch adds to one link, from one shard. */
export interface LinkTally {
  linkId: string;
  shardId: string;
  humans: number;
  bots: number;
  lastHumanAt: string | null;
  lastBotAt: string | null;
  /** The padded sequence numbers of the records counted, lowest and highest. */
  minSequence: string;
  maxSequence: string;
  /** Every counted record (padded sequence, bot?, timestamp): to recount when a retry finds part of the batch applied. */
  records: Array<{ sequence: string; isBot: boolean; at: string }>;
  /** The same clicks by hour of their timestamp (`clickHourOf`): the live counts they add. */
  hours: Map<string, { humans: number; bots: number }>;
}

/**
 * Kinesis sequence numbers are decimal strings of up to 129 digits: the API's pattern is
 * `0|([1-9]\d{0,128})`
 * (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_SequenceNumberRange.html).
 */
export const SEQUENCE_DIGITS = 129;
/** The width checkpoints were padded to before: still read (and rewritten at the next count). */
const LEGACY_SEQUENCE_DIGITS = 128;

/**
 * Sequence numbers compared as text in DynamoDB conditions: left-padded to a fixed width so
 * that text order is number order.
 */
export const padSequence = (sequenceNumber: string): string => sequenceNumber.padStart(SEQUENCE_DIGITS, '0');

/** The link attribute holding the last sequence number of a shard counted on it (one per shard). */
export const checkpointAttribute = (shardId: string): string => `counted#${shardId}`;

/**
 * How long a shard's checkpoint stays on a link after the last count from that shard. Past it,
 * no record of that shard can be delivered again (the stream keeps records 24 hours; the
 * consumer's kept failures expire, and are replayed only while younger than this, see
 * shared/events/kept-failures.ts), so the next count on the link removes it: a link item holds
 * the checkpoints of the shards that counted on it in the last 30 days, not of every shard the
 * stream ever had.
 */
export const CHECKPOINT_HORIZON_MS = KEPT_FAILURE_DAYS * 24 * 3600_000;

/**
 * A checkpoint's value: the padded sequence number, `@`, and when it was written (ISO time).
 * The suffix does not change comparisons with a padded sequence number: two values of one width
 * differ before it, and an equal sequence number compares greater (counted).
 */
const checkpointValue = (sequence: string, now: Date): string => `${sequence}@${now.toISOString()}`;

/** The padded sequence number of a stored checkpoint (either format), and when it was written. */
export const readCheckpoint = (value: string): { sequence: string; writtenAt: string | null } => {
  const at = value.indexOf('@');
  if (at < 0) return { sequence: value.padStart(SEQUENCE_DIGITS, '0'), writtenAt: null };
  return { sequence: value.slice(0, at), writtenAt: value.slice(at + 1) };
};

interface ClickLine {
  eventId?: unknown;
  eventType?: unknown;
  linkId?: unknown;
  trafficType?: unknown;
  timestamp?: unknown;
}

const parseClick = (data: string): { linkId: string; isBot: boolean; at: string; eventId: string | null } | null => {
  let line: ClickLine;
  try {
    line = JSON.parse(data) as ClickLine;
  } catch {
    return null;
  }
  if (line.eventType !== 'click' || typeof line.linkId !== 'string' || typeof line.timestamp !== 'string') return null;
  return {
    linkId: line.linkId,
    isBot: line.trafficType === 'bot',
    at: line.timestamp,
    eventId: typeof line.eventId === 'string' ? line.eventId : null,
  };
};

const tallyOf = (linkId: string, shardId: string, records: LinkTally['records']): LinkTally => {
  const humans = records.filter((r) => !r.isBot);
  const bots = records.filter((r) => r.isBot);
  const latest = (rs: typeof records) => rs.reduce<string | null>((a, r) => (a === null || r.at > a ? r.at : a), null);
  // A tally always holds at least one record.
  const sequences = records.map((r) => r.sequence).sort();
  const minSequence = sequences[0] ?? '';
  const maxSequence = sequences.at(-1) ?? '';
  const hours = new Map<string, { humans: number; bots: number }>();
  for (const record of records) {
    const hour = clickHourOf(record.at);
    const counts = hours.get(hour) ?? { humans: 0, bots: 0 };
    if (record.isBot) counts.bots += 1;
    else counts.humans += 1;
    hours.set(hour, counts);
  }
  return {
    linkId,
    shardId,
    humans: humans.length,
    bots: bots.length,
    lastHumanAt: latest(humans),
    lastBotAt: latest(bots),
    minSequence,
    maxSequence,
    records,
    hours,
  };
};

/**
 * The clicks of a batch, per link and shard: one counter update each, however many clicks the
 * batch holds for the link. Other event types, lake-only records and lines that are not events
 * are skipped (they count nothing), and so is a click whose eventId came earlier in the batch (a
 * producer's retry after a lost answer usually lands in the same batch): each eventId once per
 * batch. Copies in different batches are counted live and settled later (settle-click-counters.ts).
 */
export const tallyClicks = (records: CounterStreamRecord[]): LinkTally[] => {
  const groups = new Map<string, { linkId: string; shardId: string; records: LinkTally['records'] }>();
  const seen = new Set<string>();
  for (const record of records) {
    if (record.lakeOnly) continue;
    const click = parseClick(record.data);
    if (!click) continue;
    if (click.eventId !== null) {
      if (seen.has(click.eventId)) continue;
      seen.add(click.eventId);
    }
    const id = `${record.shardId}\u0000${click.linkId}`;
    const group = groups.get(id) ?? { linkId: click.linkId, shardId: record.shardId, records: [] };
    group.records.push({ sequence: padSequence(record.sequenceNumber), isBot: click.isBot, at: click.at });
    groups.set(id, group);
  }
  return [...groups.values()].map((g) => tallyOf(g.linkId, g.shardId, g.records));
};

/** `item`: the link item as the update left it (its counters included); `hours`: what it added per hour. */
export type ApplyOutcome =
  | {
      outcome: 'applied';
      clicks: number;
      item?: Record<string, unknown>;
      hours: ReadonlyMap<string, { humans: number; bots: number }>;
    }
  | { outcome: 'already_applied' | 'link_gone' };

/** A conditional update that lost to a concurrent change: read again and try again. */
class ConditionRaced extends Error {}

/**
 * Runs an optimistic read-modify-write `attempt` (it throws ConditionRaced when its condition
 * failed to a concurrent change) through the one retry helper, four attempts in all, at once
 * (nothing to wait for: the attempt reads what changed).
 */
const retryRaced = async <T>(attempt: () => Promise<T>, what: string): Promise<T> => {
  try {
    return await retry(attempt, {
      attempts: 4,
      retryOn: (error) => error instanceof ConditionRaced,
      pause: () => Promise.resolve(),
    });
  } catch (error) {
    if (error instanceof ConditionRaced) throw new Error(`${what}: condition kept failing`, { cause: error });
    throw error;
  }
};

/**
 * Adds one tally to its link in one UpdateItem, exactly once under at-least-once delivery: the
 * link keeps, per shard, the highest sequence number counted on it, and the update is
 * conditioned on the tally's records all being newer. A redelivered batch (the consumer's
 * retry, a replay) finds them counted and changes nothing. `lastClicked` / `lastBotClickedAt`
 * only move forward (shards are consumed concurrently, so a batch may carry older clicks than
 * one already counted). A human click that moves the count into the next clicks bucket
 * (link-index.ts) also moves the link's clicks-order sort key.
 *
 * A replay of a kept failure (`replayId`: the kept batch's id) comes after later batches of its
 * shard moved the checkpoint past it, so it cannot be judged by the checkpoint: it is counted
 * once per link by its own marker (`counted#replay:<id>`, removed with old checkpoints).
 */
export const applyLinkTally = async (tally: LinkTally, now = new Date(), replayId?: string): Promise<ApplyOutcome> => {
  let current = tally;
  let moveLastHuman = current.lastHumanAt !== null;
  let moveLastBot = current.lastBotAt !== null;
  const marker = checkpointAttribute(replayId === undefined ? current.shardId : `replay:${replayId}`);
  const attempt = async (): Promise<ApplyOutcome> => {
    const sets = ['#cp = :seq', '#from = if_not_exists(#from, :from)'];
    const adds = ['clicks :h', 'botClicks :b'];
    const names: Record<string, string> = { '#cp': marker, '#from': COUNTS_FROM };
    const hourValues: Record<string, unknown> = {};
    [...current.hours.entries()].forEach(([hour, counts], i) => {
      if (counts.humans > 0) {
        names[`#lh${String(i)}`] = liveHumans(hour);
        hourValues[`:lh${String(i)}`] = counts.humans;
        adds.push(`#lh${String(i)} :lh${String(i)}`);
      }
      if (counts.bots > 0) {
        names[`#lb${String(i)}`] = liveBots(hour);
        hourValues[`:lb${String(i)}`] = counts.bots;
        adds.push(`#lb${String(i)} :lb${String(i)}`);
      }
    });
    const firstHour = [...current.hours.keys()].sort()[0] ?? clickHourOf(now.toISOString());
    // A checkpoint written at the former width (128) is compared at that width; the next count
    // rewrites it at the new one. Any 129-digit sequence number is above every former value.
    const legacyMin = current.minSequence.startsWith('0') ? current.minSequence.slice(1) : null;
    const conditions = [
      'attribute_exists(pk)',
      replayId === undefined
        ? `(attribute_not_exists(#cp) OR (size(#cp) = :legacyWidth${legacyMin === null ? '' : ' AND #cp < :legacyMin'}) OR (size(#cp) > :legacyWidth AND #cp < :min))`
        : 'attribute_not_exists(#cp)',
    ];
    const values: Record<string, unknown> = {
      ':h': current.humans,
      ':b': current.bots,
      ':seq': checkpointValue(current.maxSequence, now),
      ':from': firstHour,
      ...hourValues,
    };
    if (replayId === undefined) {
      values[':min'] = current.minSequence;
      values[':legacyWidth'] = LEGACY_SEQUENCE_DIGITS;
      if (legacyMin !== null) values[':legacyMin'] = legacyMin;
    }
    if (moveLastHuman) {
      sets.push('lastClicked = :lh');
      // A new link stores `lastClicked: null` (type NULL): only a time already there can be later.
      conditions.push('(NOT attribute_type(lastClicked, :string) OR lastClicked <= :lh)');
      values[':lh'] = current.lastHumanAt;
      values[':string'] = 'S';
    }
    if (moveLastBot) {
      sets.push('lastBotClickedAt = :lb');
      conditions.push('(NOT attribute_type(lastBotClickedAt, :string) OR lastBotClickedAt <= :lb)');
      values[':lb'] = current.lastBotAt;
      values[':string'] = 'S';
    }
    try {
      const out = await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.link(current.linkId),
          UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          // The new count and the creation time (the clicks-order sort key), and the checkpoints
          // of other shards (to prune). Return values cost no capacity.
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const clicks = Number(out.Attributes?.clicks ?? 0);
      if (
        current.humans > 0 &&
        out.Attributes?.gsi3pk !== undefined &&
        clicksBucket(clicks) !== clicksBucket(clicks - current.humans)
      ) {
        await moveClicksSortKey(current.linkId, clicks, String(out.Attributes.createdAt));
      }
      if (out.Attributes) {
        await markAllTracked(current.linkId, out.Attributes, firstHour, current.humans + current.bots);
        await pruneCheckpoints(current.linkId, out.Attributes, marker, now);
      }
      return { outcome: 'applied', clicks: current.humans + current.bots, item: out.Attributes, hours: current.hours };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      // The document client does not unmarshall an error's item (ReturnValuesOnConditionCheckFailure).
      const failed = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      const item = failed ? unmarshall(failed) : await readLinkCounters(current.linkId);
      if (!item) return { outcome: 'link_gone' };
      if (replayId !== undefined && item[marker] !== undefined) return { outcome: 'already_applied' };
      const stored = replayId === undefined ? (item[marker] as string | undefined) : undefined;
      const checkpoint = stored === undefined ? undefined : readCheckpoint(stored).sequence;
      if (checkpoint !== undefined && checkpoint >= current.minSequence) {
        // Counted already, whole or in part (a retried batch split differently): count the rest.
        const rest = current.records.filter((r) => r.sequence > checkpoint);
        if (rest.length === 0) return { outcome: 'already_applied' };
        current = tallyOf(current.linkId, current.shardId, rest);
        moveLastHuman = current.lastHumanAt !== null;
        moveLastBot = current.lastBotAt !== null;
        throw new ConditionRaced();
      }
      // A later click is already recorded: keep its time.
      if (moveLastHuman && typeof item.lastClicked === 'string' && item.lastClicked > (current.lastHumanAt ?? ''))
        moveLastHuman = false;
      if (moveLastBot && typeof item.lastBotClickedAt === 'string' && item.lastBotClickedAt > (current.lastBotAt ?? ''))
        moveLastBot = false;
      throw new ConditionRaced();
    }
  };
  return retryRaced(attempt, `click counters of link ${tally.linkId}`);
};

/**
 * The first count of a link that had no click before (its totals are this update's own clicks)
 * marks every click of the link as counted per hour: its first day can be settled too. Once per
 * link; a link counted before the hourly counts existed keeps `countsFrom` at its first hour so
 * counted.
 */
const markAllTracked = async (
  linkId: string,
  item: Record<string, unknown>,
  firstHour: string,
  counted: number,
): Promise<void> => {
  if (item[COUNTS_FROM] !== firstHour) return;
  if (Number(item.clicks ?? 0) + Number(item.botClicks ?? 0) !== counted) return;
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: 'SET #from = :all',
        ConditionExpression: '#from = :first',
        ExpressionAttributeNames: { '#from': COUNTS_FROM },
        ExpressionAttributeValues: { ':all': ALL_TRACKED, ':first': firstHour },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

/** Attributes of a link past their horizon: live hours and settled days older than `SETTLED_DAYS`. */
const staleCountAttributes = (item: Record<string, unknown>, now: Date): Array<[string, unknown]> => {
  const oldestDay = new Date(now.getTime() - SETTLED_DAYS * 24 * 3600_000).toISOString().slice(0, 10);
  return Object.entries(item).filter(([name]) => {
    const match = /^(?:lh|lb|sh|sb)#(\d{4}-\d{2}-\d{2})/.exec(name);
    return match !== null && (match[1] ?? '') < oldestDay;
  });
};

/**
 * Removes the checkpoints of shards that have not counted on the link for longer than the
 * horizon (`CHECKPOINT_HORIZON_MS`), each only if unchanged since read. Former-format
 * checkpoints (no time) stay until their shard counts again and rewrites them. Live and settled
 * counts of days older than `SETTLED_DAYS` go too (the day is final; `clicks` keeps them).
 */
const pruneCheckpoints = async (
  linkId: string,
  item: Record<string, unknown>,
  written: string,
  now: Date,
): Promise<void> => {
  const oldest = new Date(now.getTime() - CHECKPOINT_HORIZON_MS).toISOString();
  const stale: Array<[string, unknown]> = [
    ...Object.entries(item).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith(checkpointAttribute('')) &&
        entry[0] !== written &&
        typeof entry[1] === 'string' &&
        (readCheckpoint(entry[1]).writtenAt ?? oldest) < oldest,
    ),
    ...staleCountAttributes(item, now),
  ];
  if (stale.length === 0) return;
  const names = Object.fromEntries(stale.map(([name], i) => [`#s${String(i)}`, name]));
  const values = Object.fromEntries(stale.map(([, value], i) => [`:s${String(i)}`, value]));
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
        ConditionExpression: stale.map((_, i) => `#s${String(i)} = :s${String(i)}`).join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    // A checkpoint moved on (its shard counted again) or the link is gone: nothing to prune now.
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

const readLinkCounters = async (linkId: string): Promise<Record<string, unknown> | undefined> =>
  (
    await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.link(linkId), ConsistentRead: true }),
    )
  ).Item;

const moveClicksSortKey = async (linkId: string, clicks: number, createdAt: string): Promise<void> => {
  const bucket = clicksBucket(clicks);
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: 'SET gsi3sk = :sk',
        ConditionExpression: 'attribute_exists(gsi3pk) AND clicks >= :lo AND clicks < :hi',
        ExpressionAttributeValues: {
          ':sk': clicksSortKey({ id: linkId, createdAt, clicks }),
          ':lo': clicksBucketStart(bucket),
          ':hi': clicksBucketStart(bucket + 1),
        },
      }),
    );
  } catch (error) {
    // The count has moved on (a later crossing writes its bucket), or the link is gone.
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

export type SettleOutcome = 'settled' | 'unchanged' | 'not_tracked' | 'too_old' | 'link_gone';

/**
 * Settles one day of one link: `exact` is the distinct count of the link's clicks (by eventId)
 * in the day's hours before `closedBefore` (the closed hours, from the de-duplicated lake). The
 * live counts of those hours (`lh#`/`lb#`) and the day's former settled count (`sh#`/`sb#`) are
 * replaced by it, and `clicks` / `botClicks` move by the difference: a click the consumer counted
 * twice (copies in different batches) is taken off, one it never counted is added. One
 * conditional UpdateItem, only when something changes; retried if the consumer counted
 * meanwhile. A day is settled only while every one of its clicks was counted per hour
 * (`countsFrom`) and within `SETTLED_DAYS`.
 */
export const settleLinkDay = async (
  linkId: string,
  day: string,
  closedBefore: string,
  exact: { humans: number; bots: number },
  now = new Date(),
): Promise<SettleOutcome> => {
  const oldestDay = new Date(now.getTime() - SETTLED_DAYS * 24 * 3600_000).toISOString().slice(0, 10);
  if (day < oldestDay) return 'too_old';
  const closedHour = clickHourOf(closedBefore);
  const attempt = async (): Promise<SettleOutcome> => {
    const item = await readLinkCounters(linkId);
    if (!item) return 'link_gone';
    const from = item[COUNTS_FROM];
    if (typeof from !== 'string' || !(from < day)) return 'not_tracked';
    const live = Object.entries(item).filter(
      (entry): entry is [string, number] =>
        /^l[hb]#/.test(entry[0]) &&
        entry[0].slice(3, 13) === day &&
        entry[0].slice(3) < closedHour &&
        typeof entry[1] === 'number',
    );
    const settled = { humans: Number(item[settledHumans(day)] ?? 0), bots: Number(item[settledBots(day)] ?? 0) };
    const liveHumansOfDay = live.filter(([name]) => name.startsWith('lh#')).reduce((sum, [, n]) => sum + n, 0);
    const liveBotsOfDay = live.filter(([name]) => name.startsWith('lb#')).reduce((sum, [, n]) => sum + n, 0);
    const deltaHumans = exact.humans - settled.humans - liveHumansOfDay;
    const deltaBots = exact.bots - settled.bots - liveBotsOfDay;
    if (deltaHumans === 0 && deltaBots === 0 && live.length === 0) return 'unchanged';
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':dh': deltaHumans, ':db': deltaBots };
    // A zero count is written only over an earlier value (most links have no bot click: no attribute).
    const sets: string[] = [];
    if (exact.humans > 0 || item[settledHumans(day)] !== undefined) {
      names['#sh'] = settledHumans(day);
      values[':eh'] = exact.humans;
      sets.push('#sh = :eh');
    }
    if (exact.bots > 0 || item[settledBots(day)] !== undefined) {
      names['#sb'] = settledBots(day);
      values[':eb'] = exact.bots;
      sets.push('#sb = :eb');
    }
    const conditions = ['attribute_exists(pk)'];
    // Each value read must be unchanged (the consumer adds to live hours, a prune removes days).
    const unchanged = (alias: string, name: string, value: unknown) => {
      names[`#${alias}`] = name;
      if (value === undefined) conditions.push(`attribute_not_exists(#${alias})`);
      else {
        values[`:${alias}`] = value;
        conditions.push(`#${alias} = :${alias}`);
      }
    };
    unchanged('osh', settledHumans(day), item[settledHumans(day)]);
    unchanged('osb', settledBots(day), item[settledBots(day)]);
    const removes = live.map(([name, value], i) => {
      unchanged(`l${String(i)}`, name, value);
      return `#l${String(i)}`;
    });
    try {
      const out = await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.link(linkId),
          UpdateExpression: [
            'ADD clicks :dh, botClicks :db',
            sets.length ? `SET ${sets.join(', ')}` : '',
            removes.length ? `REMOVE ${removes.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const clicks = Number(out.Attributes?.clicks ?? 0);
      if (
        deltaHumans !== 0 &&
        out.Attributes?.gsi3pk !== undefined &&
        clicksBucket(clicks) !== clicksBucket(clicks - deltaHumans)
      )
        await moveClicksSortKey(linkId, clicks, String(out.Attributes.createdAt));
      return 'settled';
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      throw new ConditionRaced();
    }
  };
  return retryRaced(attempt, `settling the click counters of link ${linkId} for ${day}`);
};

export interface CounterBatchResult {
  links: number;
  clicks: number;
  applied: number;
  alreadyApplied: number;
  linksGone: number;
}

/** Some updates of a batch failed: the first error, and the links (with shard) that were not counted. */
export class CounterUpdatesFailed extends Error {
  constructor(
    readonly failed: Array<{ linkId: string; shardId: string }>,
    readonly firstError: unknown,
  ) {
    super(
      `click counters of ${String(failed.length)} links not applied: ${firstError instanceof Error ? firstError.message : String(firstError)}`,
    );
    this.name = 'CounterUpdatesFailed';
  }
}

/**
 * The counter consumer's work for one batch of stream records: one update per link (and shard),
 * at most `concurrency` at a time. Throws `CounterUpdatesFailed` if any update fails, so the
 * whole batch is delivered again (the updates that went through are then found applied and
 * skipped). `replayId`: the batch is a kept failure replayed (see `applyLinkTally`). `onApplied`
 * sees each applied link with its item as the update left it (ReturnValues, no extra read) and
 * the human and bot clicks the update added per hour.
 */
export const applyClickCounters = async (
  records: CounterStreamRecord[],
  concurrency = 16,
  now = new Date(),
  replayId?: string,
  onApplied?: (
    linkId: string,
    item: Record<string, unknown>,
    hours: ReadonlyMap<string, { humans: number; bots: number }>,
  ) => void,
): Promise<CounterBatchResult> => {
  const tallies = tallyClicks(records);
  const result: CounterBatchResult = { links: tallies.length, clicks: 0, applied: 0, alreadyApplied: 0, linksGone: 0 };
  const failures: Array<{ linkId: string; shardId: string; error: unknown }> = [];
  // At most `concurrency` links at a time (p-limit), in the tallies' order.
  const limit = pLimit(concurrency);
  await Promise.all(
    tallies.map((tally) =>
      limit(async () => {
        try {
          const applied = await applyLinkTally(tally, now, replayId);
          if (applied.outcome === 'applied') {
            result.applied += 1;
            result.clicks += applied.clicks;
            if (applied.item) onApplied?.(tally.linkId, applied.item, applied.hours);
          } else if (applied.outcome === 'already_applied') result.alreadyApplied += 1;
          else result.linksGone += 1;
        } catch (error) {
          failures.push({ linkId: tally.linkId, shardId: tally.shardId, error });
        }
      }),
    ),
  );
  if (failures.length)
    throw new CounterUpdatesFailed(
      failures.map(({ linkId, shardId }) => ({ linkId, shardId })),
      failures[0]?.error,
    );
  return result;
};

/** The records of a batch that belong to the given links' tallies (the ones to keep after a failure). */
export const recordsOfLinks = <T extends CounterStreamRecord>(
  records: T[],
  links: Array<{ linkId: string; shardId: string }>,
): T[] => {
  const wanted = new Set(links.map((l) => `${l.shardId}\u0000${l.linkId}`));
  return records.filter((record) => {
    const click = parseClick(record.data);
    return click !== null && !record.lakeOnly && wanted.has(`${record.shardId}\u0000${click.linkId}`);
  });
};
