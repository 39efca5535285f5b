import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { clicksBucket, clicksBucketStart, clicksSortKey } from '@shared/links/link-index';
import { required } from '@shared/util/required';

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
 * Sequence numbers compared as text in DynamoDB conditions: left-padded to a fixed width so
 * that text order is number order (Kinesis sequence numbers are up to 128 digits long).
 */
export const padSequence = (sequenceNumber: string): string => sequenceNumber.padStart(128, '0');

/** The link attribute holding the last sequence number of a shard counted on it (one per shard). */
export const checkpointAttribute = (shardId: string): string => `counted#${shardId}`;

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
  const sequences = records.map((r) => r.sequence).sort();
  return {
    linkId,
    shardId,
    humans: humans.length,
    bots: bots.length,
    lastHumanAt: latest(humans),
    lastBotAt: latest(bots),
    minSequence: required(sequences[0], 'the first sequence of a tally (a tally has records)'),
    maxSequence: required(sequences.at(-1), 'the last sequence of a tally (a tally has records)'),
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
 */
export const applyLinkTally = async (tally: LinkTally): Promise<ApplyOutcome> => {
  let current = tally;
  let moveLastHuman = current.lastHumanAt !== null;
  let moveLastBot = current.lastBotAt !== null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const sets = ['#cp = :seq'];
    const conditions = ['attribute_exists(pk)', '(attribute_not_exists(#cp) OR #cp < :min)'];
    const values: Record<string, unknown> = {
      ':h': current.humans,
      ':b': current.bots,
      ':seq': current.maxSequence,
      ':min': current.minSequence,
    };
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
          ExpressionAttributeNames: { '#cp': checkpointAttribute(current.shardId) },
          ExpressionAttributeValues: values,
          // The new count and the creation time (the clicks-order sort key).
          ReturnValues: current.humans > 0 ? 'ALL_NEW' : 'NONE',
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
      return { outcome: 'applied', clicks: current.humans + current.bots };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      // The document client does not unmarshall an error's item (ReturnValuesOnConditionCheckFailure).
      const failed = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      const item = failed ? unmarshall(failed) : await readLinkCounters(current.linkId);
      if (!item) return { outcome: 'link_gone' };
      const checkpoint = item[checkpointAttribute(current.shardId)] as string | undefined;
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
      const { lastHumanAt, lastBotAt } = current;
      if (
        moveLastHuman &&
        lastHumanAt !== null &&
        typeof item.lastClicked === 'string' &&
        item.lastClicked > lastHumanAt
      )
        moveLastHuman = false;
      if (
        moveLastBot &&
        lastBotAt !== null &&
        typeof item.lastBotClickedAt === 'string' &&
        item.lastBotClickedAt > lastBotAt
      )
        moveLastBot = false;
    }
  }
  throw new Error(`click counters of link ${tally.linkId}: condition kept failing`);
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

/**
 * The counter consumer's work for one batch of stream records: one update per link (and shard),
 * at most `concurrency` at a time. Throws if any update fails, so the whole batch is delivered
 * again (the updates that went through are then found applied and skipped).
 */
export const applyClickCounters = async (
  records: CounterStreamRecord[],
  concurrency = 16,
): Promise<CounterBatchResult> => {
  const tallies = tallyClicks(records);
  const result: CounterBatchResult = { links: tallies.length, clicks: 0, applied: 0, alreadyApplied: 0, linksGone: 0 };
  // One iterator shared by the workers: each takes the next tally not yet taken.
  const queue = tallies.values();
  const failures: unknown[] = [];
  const worker = async () => {
    for (const tally of queue) {
      try {
        const applied = await applyLinkTally(tally);
        if (applied.outcome === 'applied') {
          result.applied += 1;
          result.clicks += applied.clicks;
        } else if (applied.outcome === 'already_applied') result.alreadyApplied += 1;
        else result.linksGone += 1;
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tallies.length) }, worker));
  if (failures.length) throw failures[0];
  return result;
};
