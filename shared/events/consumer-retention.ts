/**
 * How long the stream consumers retry a failing batch and how long its kept failure stays
 * (docs/event-stream.md). No side effects: the CDK app imports these.
 *
 * A batch must be given up (and kept whole in the failures bucket) before its records can leave
 * the stream: Kinesis keeps them 24 hours here, a DynamoDB stream always 24 hours. Records that
 * expire before the event source mapping gives up are trimmed without reaching any destination,
 * so the consumers' maximum record age stays well below the retention.
 */
export const STREAM_RETENTION_HOURS = 24;
export const CONSUMER_MAX_RECORD_AGE_HOURS = 20;
/** Kept failures expire after this many days (the counters' checkpoints last as long). */
export const KEPT_FAILURE_DAYS = 30;
/**
 * The click counter consumer keeps the links it could not count itself, before the event source
 * mapping would give the whole batch up: once the batch's oldest record is this old.
 */
export const COUNTER_GIVE_UP_HOURS = 18;
/** The environment variable naming the failures bucket (the counter consumer writes to it). */
export const STREAM_FAILURES_BUCKET_ENV = 'STREAM_FAILURES_BUCKET';
