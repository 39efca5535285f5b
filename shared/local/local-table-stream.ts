import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record as StreamRecord,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { log } from '@shared/util/logger';

/**
 * The table's stream read as a Lambda event source mapping reads it, for the local stack: every
 * shard in order, each batch handed to `handle`, which answers the sequence number to resume
 * from when part of the batch failed (`batchItemFailures`), or nothing.
 *
 * DynamoDB Local's shards are less steady than the service's, and a reader that trusts them
 * stops for good: a `GetRecords` on an open shard may answer without `NextShardIterator`, an
 * iterator may expire or name a shard that is gone (`ExpiredIteratorException`,
 * `ResourceNotFoundException`, `TrimmedDataAccessException`), and shards close and new ones
 * open. So each shard keeps the last sequence number it handed on, and whenever its iterator is
 * lost the reader asks for a new one `AFTER_SEQUENCE_NUMBER` (or, on a shard that held nothing
 * when the reader started and has handed nothing on since, `TRIM_HORIZON`). A shard is finished only
 * once DescribeStream shows it closed and a read from its end gives nothing more. Every loss is
 * logged (warn) with the error that caused it.
 */
export interface TableStreamReader {
  /** Finds the shards and each open one's end: records written from here on are handed on. */
  start(): Promise<void>;
  /** Shards whose iterator was lost and taken again (for tests and logs). */
  recoveries(): number;
  /** One pass over every shard: answers whether any records were handled. */
  poll(): Promise<boolean>;
}

interface ShardState {
  iterator: string | undefined;
  /** The last sequence number handed on (or skipped at the start as history). */
  lastSequence: string | undefined;
  /** Records of a batch `handle` failed part of, sent again before anything newer. */
  pending: StreamRecord[];
  /** DescribeStream showed the shard closed. */
  closed: boolean;
  finished: boolean;
}

/** How many passes between DescribeStream calls (new shards, closed ones). */
const DISCOVERY_EVERY = 10;

const errorName = (error: unknown) => (error as { name?: string } | null)?.name ?? 'Error';

export const createTableStreamReader = (options: {
  streams: DynamoDBStreamsClient;
  streamArn: string;
  /** Hands a batch on; answers the sequence number to resume from when part of it failed. */
  handle: (records: StreamRecord[]) => Promise<string | undefined>;
}): TableStreamReader => {
  const { streams, streamArn, handle } = options;
  const shards = new Map<string, ShardState>();
  let passes = 0;
  let recoveries = 0;

  /**
   * New shards and closed ones. At the start, the shards closed already hold history from before
   * the reader (not its to hand on), and the open ones are read to their end without handing
   * anything on, so the reader knows each one's last sequence number from the start (DynamoDB
   * Local's record times are rounded to the minute, too coarse to tell history from news).
   * Shards that open later are read from their start.
   */
  const discover = async (initial: boolean) => {
    const described = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of described.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      const known = shards.get(id);
      if (known) {
        known.closed = closed;
        continue;
      }
      const state: ShardState = { iterator: undefined, lastSequence: undefined, pending: [], closed, finished: false };
      shards.set(id, state);
      if (initial && closed) state.finished = true;
      else if (initial) await skipHistory(id, state);
    }
  };

  const skipHistory = async (shardId: string, state: ShardState) => {
    let iterator = await iteratorFor(shardId, state);
    while (iterator) {
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const last = out.Records?.at(-1)?.dynamodb?.SequenceNumber;
      if (last) state.lastSequence = last;
      iterator = out.NextShardIterator;
      if (!out.Records?.length) break;
    }
    state.iterator = iterator;
  };

  const iteratorFor = async (shardId: string, state: ShardState): Promise<string | undefined> => {
    const at = async (type: ShardIteratorType) =>
      (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ShardIteratorType: type,
            ...(type === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: state.lastSequence } : {}),
          }),
        )
      ).ShardIterator;
    try {
      if (!state.lastSequence) return await at('TRIM_HORIZON');
      try {
        return await at('AFTER_SEQUENCE_NUMBER');
      } catch (error) {
        if (errorName(error) !== 'TrimmedDataAccessException') throw error;
        // The last record handed on is past the shard's retention: read what the shard still has.
        log('warn', 'local table stream: resuming from the oldest record left', { shardId, error: String(error) });
        return await at('TRIM_HORIZON');
      }
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
      // The shard is gone (past the stream's retention): nothing more to read on it.
      state.finished = true;
      log('warn', 'local table stream: shard gone', { shardId, error: String(error) });
      return undefined;
    }
  };

  const readShard = async (shardId: string, state: ShardState): Promise<boolean> => {
    let records = state.pending;
    if (records.length === 0) {
      state.iterator ??= await iteratorFor(shardId, state);
      if (!state.iterator) return false;
      let out;
      try {
        out = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 100 }));
      } catch (error) {
        // An expired or unknown iterator: take a new one from the last sequence number.
        state.iterator = undefined;
        recoveries += 1;
        log('warn', 'local table stream: iterator lost; taking a new one', { shardId, error: String(error) });
        return false;
      }
      const read = out.Records ?? [];
      state.iterator = out.NextShardIterator;
      if (!out.NextShardIterator) {
        // The end of a closed shard, or (DynamoDB Local) an open shard that lost its iterator.
        if (state.closed && read.length === 0) state.finished = true;
        else {
          recoveries += 1;
          log('info', 'local table stream: no next iterator; taking a new one', { shardId, closed: state.closed });
        }
      }
      records = read;
      if (records.length === 0) return false;
    }
    // Kept until handled: a batch whose handler throws is sent again, as the event source mapping does.
    state.pending = records;
    const failedFrom = await handle(records);
    const index = failedFrom ? records.findIndex((r) => r.dynamodb?.SequenceNumber === failedFrom) : -1;
    const done = index >= 0 ? records.slice(0, index) : records;
    state.pending = index >= 0 ? records.slice(index) : [];
    const handedOn = done.at(-1)?.dynamodb?.SequenceNumber;
    if (handedOn) state.lastSequence = handedOn;
    return true;
  };

  return {
    start: () => discover(true),
    recoveries: () => recoveries,
    poll: async () => {
      if (++passes % DISCOVERY_EVERY === 0) await discover(false);
      let busy = false;
      for (const [shardId, state] of shards) {
        if (state.finished) continue;
        if (await readShard(shardId, state)) busy = true;
      }
      return busy;
    },
  };
};
