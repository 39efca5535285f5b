/**
 * Runtime configuration, read from the environment once (at cold start, on first use) and
 * validated. A Lambda with a broken environment fails at init, not on some later request.
 *
 * Plain checks rather than a zod schema: config is read on every Lambda, the redirect included,
 * and zod would add about 80 KiB and several ms to every cold start (docs/benchmarks.md).
 */
export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
export const shortLinkSchemes = ['https', 'http'] as const;
export type ShortLinkScheme = (typeof shortLinkSchemes)[number];

export interface Config {
  TABLE_NAME: string;
  AWS_REGION: string;
  /** Set only for the local stack (DynamoDB Local). */
  DYNAMODB_ENDPOINT?: string;
  /** Kinesis data stream every event is put to (deployed); Firehose reads it into the lake. */
  EVENTS_STREAM_NAME?: string;
  /** SQS queue URL of the event spool: events the stream rejects after the retries (deployed). */
  EVENTS_SPOOL_QUEUE_URL?: string;
  /** Local stand-in for the Firehose -> S3 lake: a directory. */
  LOCAL_LAKE_DIR?: string;
  /** Athena workgroup and Glue database of the event lake (deployed analytics). */
  ATHENA_WORKGROUP?: string;
  ATHENA_DATABASE?: string;
  /** The lake bucket (deployed analytics read the compaction watermark from it). */
  LAKE_BUCKET?: string;
  LOG_LEVEL: LogLevel;
  /**
   * How short links are written (shortLinkOf in shared/links/short-link.ts): unset when deployed,
   * `https://{domain}/{key}`. The local stack sets `http` and its edge's port, so every short link
   * it answers with is one its edge serves: `http://{domain}:{port}/{key}`.
   */
  SHORT_LINK_SCHEME: ShortLinkScheme;
  SHORT_LINK_PORT?: number;
}

const isUrl = (value: string) => {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
};

/** Reads and checks the configuration from an environment; throws naming every bad variable. */
export const parseConfig = (env: Record<string, string | undefined>): Config => {
  const problems: string[] = [];
  /** Unset stays undefined; set but empty is a problem (same as a required one). */
  const optional = (name: string) => {
    const value = env[name];
    if (value === '') problems.push(`${name}: must not be empty`);
    return value || undefined;
  };
  const tableName = env.TABLE_NAME;
  if (!tableName) problems.push(`TABLE_NAME: ${tableName === undefined ? 'is required' : 'must not be empty'}`);
  const region = optional('AWS_REGION') ?? 'us-east-1';
  const endpoint = env.DYNAMODB_ENDPOINT;
  if (endpoint !== undefined && !isUrl(endpoint)) problems.push('DYNAMODB_ENDPOINT: must be a URL');
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!(logLevels as readonly string[]).includes(logLevel))
    problems.push(`LOG_LEVEL: must be one of ${logLevels.join(', ')}`);
  const scheme = env.SHORT_LINK_SCHEME ?? 'https';
  if (!(shortLinkSchemes as readonly string[]).includes(scheme))
    problems.push(`SHORT_LINK_SCHEME: must be one of ${shortLinkSchemes.join(', ')}`);
  const portText = optional('SHORT_LINK_PORT');
  const port = portText === undefined ? undefined : Number(portText);
  if (portText !== undefined && (!/^\d+$/.test(portText) || port === undefined || port < 1 || port > 65535))
    problems.push('SHORT_LINK_PORT: must be a port number from 1 to 65535');
  const config: Config = {
    TABLE_NAME: tableName ?? '',
    AWS_REGION: region,
    DYNAMODB_ENDPOINT: endpoint,
    EVENTS_STREAM_NAME: optional('EVENTS_STREAM_NAME'),
    EVENTS_SPOOL_QUEUE_URL: optional('EVENTS_SPOOL_QUEUE_URL'),
    LOCAL_LAKE_DIR: optional('LOCAL_LAKE_DIR'),
    ATHENA_WORKGROUP: optional('ATHENA_WORKGROUP'),
    ATHENA_DATABASE: optional('ATHENA_DATABASE'),
    LAKE_BUCKET: optional('LAKE_BUCKET'),
    LOG_LEVEL: logLevel as LogLevel,
    SHORT_LINK_SCHEME: scheme as ShortLinkScheme,
    SHORT_LINK_PORT: port,
  };
  if (problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  return config;
};

let cached: Config | undefined;
let provided: Config | undefined;

export const getConfig = (): Config => {
  cached ??= provided ?? parseConfig(process.env);
  return cached;
};

/** Read the environment again on next use (tests; the local stack once its edge's port is known). */
export const resetConfig = () => {
  cached = undefined;
};

/**
 * For a composition root that builds its configuration itself rather than from its environment
 * (the admin CLI, from its flags): the configuration from now on; undefined: the environment's again.
 */
export const provideConfig = (config: Config | undefined) => {
  provided = config;
  cached = undefined;
};

/** The environment that makes short links name the local edge: plain HTTP on its port. */
export const localShortLinkEnv = (edgePort: number) => ({
  SHORT_LINK_SCHEME: 'http' satisfies ShortLinkScheme,
  SHORT_LINK_PORT: String(edgePort),
});

/**
 * For the local stack, once its edge listens (and the admin CLI pointed at it): short links become
 * `http://{domain}:{edgePort}/{key}`, which that edge answers. Sets the process environment, which
 * child processes inherit, and reads the configuration again.
 */
export const useLocalShortLinks = (edgePort: number) => {
  Object.assign(process.env, localShortLinkEnv(edgePort));
  resetConfig();
};

/** Env variable names the deployed functions get; the CDK construct sets them from here. */
export const envNames = {
  tableName: 'TABLE_NAME',
  eventsStreamName: 'EVENTS_STREAM_NAME',
  eventsSpoolQueueUrl: 'EVENTS_SPOOL_QUEUE_URL',
  athenaWorkgroup: 'ATHENA_WORKGROUP',
  athenaDatabase: 'ATHENA_DATABASE',
  lakeBucket: 'LAKE_BUCKET',
} as const;
