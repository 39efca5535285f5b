import * as z from 'zod';

/**
 * Runtime configuration, read from the environment once (at cold start, on first use) and
 * validated. A Lambda with a broken environment fails at init, not on some later request.
 */
const configSchema = z.object({
  TABLE_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Set only for the local stack (DynamoDB Local). */
  DYNAMODB_ENDPOINT: z.url().optional(),
  /** Firehose delivery stream for events (deployed). */
  EVENTS_STREAM_NAME: z.string().min(1).optional(),
  /** Local stand-in for the Firehose -> S3 lake: a directory. */
  LOCAL_LAKE_DIR: z.string().min(1).optional(),
  /** Athena workgroup and Glue database of the event lake (deployed analytics). */
  ATHENA_WORKGROUP: z.string().min(1).optional(),
  ATHENA_DATABASE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

let cached: Config | undefined;

export const getConfig = (): Config => {
  if (!cached) {
    const parsed = configSchema.safeParse(process.env);
    if (!parsed.success) {
      throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    cached = parsed.data;
  }
  return cached;
};

/** For tests: read the environment again on next use. */
export const resetConfig = () => {
  cached = undefined;
};

/** Env variable names the deployed functions get; the CDK construct sets them from here. */
export const envNames = {
  tableName: 'TABLE_NAME',
  eventsStreamName: 'EVENTS_STREAM_NAME',
  athenaWorkgroup: 'ATHENA_WORKGROUP',
  athenaDatabase: 'ATHENA_DATABASE',
} as const;
