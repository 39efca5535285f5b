import type { EventRecord } from '@shared/events/event-record';
import { required } from '@shared/util/required';

/*
 * The layout of the event lake, one definition for Firehose (lib/event-pipeline.ts), the Glue
 * tables (lib/analytics.ts), the local lake (local-lake-sink.ts), compaction and the engines:
 *
 *   events/shard=SS/dt=YYYY-MM-DD/hour=HH/<file>.json.gz      raw JSON lines, gzip, short-lived
 *   compacted/workspace_id=W/dt=YYYY-MM-DD/<file>.parquet      hourly compacted files (days not merged yet)
 *   compacted/daily/workspace_id=W/month=YYYY-MM/<file>.parquet  merged days: one file per workspace-day
 *
 * Raw objects are sharded by a hash of the workspace id (never by the id itself) so Firehose's
 * active partitions stay bounded whatever the number of workspaces: LAKE_SHARDS x the hours in
 * flight. The workspace id is a column (`workspaceId`) of every line. Compacted data is laid out
 * per workspace, so a tenant's reads, export and erasure touch one prefix.
 */

export const RAW_PREFIX = 'events/';
export const COMPACTED_PREFIX = 'compacted/';
export const ERRORS_PREFIX = 'errors/';

/**
 * Hash buckets of the raw layout. Changing it only moves where NEW raw objects land; raw data is
 * compacted within hours, and the engines read every shard of a closed period through the
 * compacted layout, so change it between compaction runs (docs/analytics.md).
 */
export const LAKE_SHARDS = 16;

/** Partition keys of the raw table and of the compacted table, in path order. */
export const rawPartitionKeys = ['shard', 'dt', 'hour'] as const;
export const compactedPartitionKeys = ['workspace_id', 'dt'] as const;

/**
 * Merged days (daily-merge.ts): each workspace-day's hourly files become one daily file, kept in a
 * partition per workspace and MONTH, so a 90-day view lists 4 partitions rather than 90 (S3 LIST
 * requests are the dearest part of a view) and opens one file per day.
 */
export const DAILY_PREFIX = `${COMPACTED_PREFIX}daily/`;
export const dailyPartitionKeys = ['workspace_id', 'month'] as const;

/** The folder of one workspace's merged days of one month (`YYYY-MM`). */
export const dailyMonthPath = (workspaceId: string, month: string) =>
  `${DAILY_PREFIX}workspace_id=${workspaceId}/month=${month}`;

/** The folder of everything merged for one workspace (erasure reads this prefix too). */
export const dailyWorkspacePath = (workspaceId: string) => `${DAILY_PREFIX}workspace_id=${workspaceId}`;

const HASH_MODULUS = 1_000_003;

/**
 * The shard of a workspace: a polynomial hash of its id's code points modulo LAKE_SHARDS, two
 * digits. Every intermediate value stays below 2^53, so JQ's doubles (shardJq) give the same.
 */
export const shardOf = (workspaceId: string, shards = LAKE_SHARDS): string => {
  let hash = 0;
  for (const char of workspaceId) hash = (hash * 31 + required(char.codePointAt(0), 'a code point')) % HASH_MODULUS;
  return String(hash % shards).padStart(2, '0');
};

/** The same hash as shardOf, in JQ 1.6 (Firehose's metadata extraction). */
export const shardJq = (shards = LAKE_SHARDS) =>
  `(reduce (.workspaceId | explode[]) as $c (0; (. * 31 + $c) % ${HASH_MODULUS}) % ${shards} | tostring | if length < 2 then "0" + . else . end)`;

/** JQ 1.6: the raw partition of a record from its own workspaceId and timestamp. */
export const rawPartitionJq = (shards = LAKE_SHARDS) =>
  `{shard: ${shardJq(shards)}, dt: .timestamp[0:10], hour: .timestamp[11:13]}`;

export interface RawPartition {
  shard: string;
  dt: string;
  hour: string;
}

/** Raw partition of an event: its workspace's shard, UTC date and hour of its own timestamp. */
export const rawPartitionOf = (
  event: Pick<EventRecord, 'workspaceId' | 'timestamp'>,
  shards = LAKE_SHARDS,
): RawPartition => ({
  shard: shardOf(event.workspaceId, shards),
  dt: event.timestamp.slice(0, 10),
  hour: event.timestamp.slice(11, 13),
});

/** The S3 / local folder of a raw partition (Firehose's prefix has the same text). */
export const rawPartitionPath = (p: RawPartition) => `${RAW_PREFIX}shard=${p.shard}/dt=${p.dt}/hour=${p.hour}`;

/** The folder of one workspace's compacted day. */
export const compactedDayPath = (workspaceId: string, dt: string) =>
  `${COMPACTED_PREFIX}workspace_id=${workspaceId}/dt=${dt}`;

/** The folder of everything compacted for one workspace (erasure and export read this prefix). */
export const compactedWorkspacePath = (workspaceId: string) => `${COMPACTED_PREFIX}workspace_id=${workspaceId}`;

/**
 * Raw object file extension (Firehose's FileExtension; the local sink's files): JSON lines, gzip
 * (raw-objects.ts). Athena tells a compressed text object by this extension.
 */
export const RAW_FILE_EXTENSION = '.json.gz';

/** Objects written before raw objects were compressed (uncompressed JSON lines), still read. */
export const LEGACY_RAW_FILE_EXTENSION = '.json';

/**
 * A raw object's file name: compressed (`.json.gz`) or an uncompressed one from before the switch.
 * Here rather than in raw-objects.ts so the query path (compaction-plan.ts) does not load zlib.
 */
export const isRawObjectName = (name: string): boolean =>
  name.endsWith(RAW_FILE_EXTENSION) || name.endsWith(LEGACY_RAW_FILE_EXTENSION);

/** Firehose's default active-partition limit per stream (past it, records go to errors/activePartitionExceeded/). */
export const FIREHOSE_ACTIVE_PARTITION_LIMIT = 500;

/**
 * Hours whose events may share one Firehose buffer window: the current hour, the previous one
 * (around the hour, and Firehose delivering up to 1.5x its 60 s interval late), and one more for
 * events replayed or sent late by clients.
 */
export const HOURS_IN_FLIGHT = 3;

/**
 * Active partitions Firehose holds for `workspaces` workspaces sending in one buffer window: one
 * per distinct prefix (shard, dt, hour), so at most `shards` x `hours`, whatever the number of
 * workspaces (a layout by workspace id would be `workspaces` x `hours`).
 */
export const activePartitionsFor = (workspaces: number, hours = HOURS_IN_FLIGHT, shards = LAKE_SHARDS): number =>
  Math.min(workspaces, shards) * hours;
