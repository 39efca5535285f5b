import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { KEPT_FAILURE_DAYS } from '@shared/events/consumer-retention';
import { clicksBucket, clicksBucketStart, clicksSortKey } from '@shared/links/link-index';

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
  eventType?: unknown;
  linkId?: unknown;
  trafficType?: unknown;
  timestamp?: unknown;
}

const parseClick = (data: string): { linkId: string; isBot: boolean; at: string } | null => {
  let line: ClickLine;
  try {
    line = JSON.parse(data) as ClickLine;
  } catch {
    return null;
  }
  if (line.eventType !== 'click' || typeof line.linkId !== 'string' || typeof line.timestamp !== 'string') return null;
  return { linkId: line.linkId, isBot: line.trafficType === 'bot', at: line.timestamp };
};

const tallyOf = (linkId: string, shardId: string, records: LinkTally['records']): LinkTally => {
  const humans = records.filter((r) => !r.isBot);
  const bots = records.filter((r) => r.isBot);
  const latest = (rs: typeof records) => rs.reduce<string | null>((a, r) => (a === null || r.at > a ? r.at : a), null);
  // A tally always holds at least one record.
  const sequences = records.map((r) => r.sequence).sort();
  const minSequence = sequences[0] ?? '';
  const maxSequence = sequences.at(-1) ?? '';
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
  };
};

/**
 * The clicks of a batch, per link and shard: one counter update each, however many clicks the
 * batch holds for the link. Other event types, lake-only records and lines that are not events
 * are skipped (they count nothing).
 */
export const tallyClicks = (records: CounterStreamRecord[]): LinkTally[] => {
  const groups = new Map<string, { linkId: string; shardId: string; records: LinkTally['records'] }>();
  for (const record of records) {
    if (record.lakeOnly) continue;
    const click = parseClick(record.data);
    if (!click) continue;
    const id = `${record.shardId}\u0000${click.linkId}`;
    const group = groups.get(id) ?? { linkId: click.linkId, shardId: record.shardId, records: [] };
    group.records.push({ sequence: padSequence(record.sequenceNumber), isBot: click.isBot, at: click.at });
    groups.set(id, group);
  }
  return [...groups.values()].map((g) => tallyOf(g.linkId, g.shardId, g.records));
};

export type ApplyOutcome = { outcome: 'applied'; clicks: number } | { outcome: 'already_applied' | 'link_gone' };

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
  for (let attempt = 0; attempt < 4; attempt++) {
    const sets = ['#cp = :seq'];
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
          UpdateExpression: `ADD clicks :h, botClicks :b SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#cp': marker },
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
      if (out.Attributes) await pruneCheckpoints(current.linkId, out.Attributes, marker, now);
      return { outcome: 'applied', clicks: current.humans + current.bots };
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
        continue;
      }
      // A later click is already recorded: keep its time.
      if (moveLastHuman && typeof item.lastClicked === 'string' && item.lastClicked > (current.lastHumanAt ?? ''))
        moveLastHuman = false;
      if (moveLastBot && typeof item.lastBotClickedAt === 'string' && item.lastBotClickedAt > (current.lastBotAt ?? ''))
        moveLastBot = false;
    }
  }
  throw new Error(`click counters of link ${tally.linkId}: condition kept failing`);
};

/**
 * Removes the checkpoints of shards that have not counted on the link for longer than the
 * horizon (`CHECKPOINT_HORIZON_MS`), each only if unchanged since read. Former-format
 * checkpoints (no time) stay until their shard counts again and rewrites them.
 */
const pruneCheckpoints = async (
  linkId: string,
  item: Record<string, unknown>,
  written: string,
  now: Date,
): Promise<void> => {
  const oldest = new Date(now.getTime() - CHECKPOINT_HORIZON_MS).toISOString();
  const stale = Object.entries(item).filter(
    (entry): entry is [string, string] =>
      entry[0].startsWith(checkpointAttribute('')) &&
      entry[0] !== written &&
      typeof entry[1] === 'string' &&
      (readCheckpoint(entry[1]).writtenAt ?? oldest) < oldest,
  );
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
 * skipped). `replayId`: the batch is a kept failure replayed (see `applyLinkTally`).
 */
export const applyClickCounters = async (
  records: CounterStreamRecord[],
  concurrency = 16,
  now = new Date(),
  replayId?: string,
): Promise<CounterBatchResult> => {
  const tallies = tallyClicks(records);
  const result: CounterBatchResult = { links: tallies.length, clicks: 0, applied: 0, alreadyApplied: 0, linksGone: 0 };
  let next = 0;
  const failures: Array<{ linkId: string; shardId: string; error: unknown }> = [];
  const worker = async () => {
    for (let tally = tallies[next++]; tally !== undefined; tally = tallies[next++]) {
      try {
        const applied = await applyLinkTally(tally, now, replayId);
        if (applied.outcome === 'applied') {
          result.applied += 1;
          result.clicks += applied.clicks;
        } else if (applied.outcome === 'already_applied') result.alreadyApplied += 1;
        else result.linksGone += 1;
      } catch (error) {
        failures.push({ linkId: tally.linkId, shardId: tally.shardId, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tallies.length) }, worker));
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
